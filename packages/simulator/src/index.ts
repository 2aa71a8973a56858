// @breakwater/simulator: configurations run against traffic on a VirtualClock (contract: docs/simulator.md).
export type { SimulationReport, ConfigurationResult, Counts, StateChange, TimeSeries, SeedRun } from './report.js';
export { renderHtml } from './html/index.js';
export type { Scenario, PipelineSpec, LayerSpec, Traffic, Phase, Backend, Latency, TraceEntry } from './scenario.js';
export { parseScenario, parseScenarioFile, type TraceReader } from './parse-scenario.js';
export { parseTrace } from './trace.js';
export { ScenarioError } from './yaml-source.js';
export { LIMITS, SimulationLimitError } from './limits.js';
export { FileReadError } from './read-file.js';
export { simulate, runConfiguration, MAX_SEEDS, type SimulateOptions } from './simulate.js';
export { SimulatedBackendError, SimulatedFaultError, SimulatedOverloadError, type RequestOutcome, type RunObserver, type RunView } from './engine-types.js';
export type { BuiltLayer } from './pipeline.js';
export { rank, RANKING_CRITERIA, scoreOf, standings, standingsOf, type Score, type Spread, type Standing } from './ranking.js';
export { renderTable, type TableOptions } from './render-table.js';
export { applySweep, parseSweep, SweepError, type SweepAxis } from './sweep.js';
export { seededRandom } from './random.js';
