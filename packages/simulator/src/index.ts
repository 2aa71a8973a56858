// @breakwater/simulator: configurations run against traffic on a VirtualClock (SPEC §11).
export type { ConfigurationResult, Counts, SimulationReport, StateChange, TimeSeries } from './report.js';
export { renderHtml } from './html/index.js';
