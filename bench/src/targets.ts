import { fasterBy, heapBelow, heapDoesNotGrow, overheadAtMost, withinRatio, type Target } from './report.js';

/** The targets of issue 6, judged on the figures of one run. */
export const TARGETS: readonly Target[] = [
  overheadAtMost('1a', 1),
  overheadAtMost('1b', 1),
  overheadAtMost('2', 0.5),
  withinRatio('3b', 'Breakwater COUNT_BASED(100 000)', '3a', 'Breakwater COUNT_BASED(1 000)', 1.3),
  overheadAtMost('4', 0.5),
  overheadAtMost('5a', 0.5),
  overheadAtMost('5b', 0.5),
  fasterBy('6', 8),
  overheadAtMost('7a', 0.5),
  overheadAtMost('7b', 0.5),
  overheadAtMost('8a', 0.5),
  overheadAtMost('8b', 0.5),
  heapDoesNotGrow('time-all', 'time-1k', 1024),
  heapBelow('count-all', 4 * 1024),
  heapBelow('registry', 40 * 1024 * 1024),
];
