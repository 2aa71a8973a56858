// The limit algorithms of @breakwater/adaptive: pure rules that move a concurrency limit from
// samples (contract: docs/adaptive.md), and the window that feeds them.

export type { LimitAlgorithm, LimitSample } from './algorithm.js';
export { aimd, type AimdOptions } from './aimd.js';
export { vegas, type VegasOptions } from './vegas.js';
export { gradient2, type Gradient2Options } from './gradient2.js';
export { windowed, type WindowedOptions } from './windowed.js';
