// The limit algorithms of @breakwater/adaptive: pure rules that move a concurrency limit from
// samples (contract: docs/roadmap.md, "Adaptive concurrency"), and the window that feeds them.

export type { LimitAlgorithm, LimitSample } from './algorithm.js';
export { aimd, type AimdOptions } from './aimd.js';
export type { LimitBounds } from './limits.js';
