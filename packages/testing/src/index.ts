export { VirtualClock, systemClock, type Clock } from '@breakwater/core';
export { parseScript, type ScriptStep } from './script.js';
export { scriptedBackend, ScriptedError, type ScriptedBackend, type ScriptedBackendOptions } from './scripted-backend.js';
export { breakerConfigArb, outcomeArb, trafficArb, type TrafficCall, type TrafficOptions } from './arbitraries.js';
export { replay, type ReplayResult } from './replay.js';
