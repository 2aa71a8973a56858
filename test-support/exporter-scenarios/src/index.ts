// The scenarios both exporters' tests drive (@breakwater/prometheus, @breakwater/opentelemetry),
// written once: each builds real components on a VirtualClock, gives them to the exporter under
// test through `add`, drives the calls, and returns what the test goes on with. Each test then
// asserts its own exporter's output. A private workspace package: no policy package depends on it.
export { expectNoLeakedTimers, newClock } from './clock.js';
export { chaosOfEachStrategy, hedgeAndChaosTraffic, hedgeFourCalls, hedgeRegistryWithOne } from './hedge-chaos.js';
export { adaptiveLimiterTwoRunningOneWaiting, everyAdaptiveRegistryWithOne, throttleRejectingOneOfFour } from './adaptive.js';
export {
  bulkheadHoldingOneOfThree,
  everyRegistryWithOne,
  oneOfEachKindAndRegistry,
  poolBulkheadOneRunningOneQueued,
  rateLimiterWithOneWaiter,
  retryFourOutcomes,
  timeLimiterThreeOutcomes,
  type AnyRegistry,
} from './policies.js';
export {
  breakerOnClock,
  breakerOpenedByFailureRate,
  breakerOpenThenLateCalls,
  breakerRegistryOfTwo,
  breakerThreeCalls,
  hundredCalls,
  smallBreakerConfig,
  spiedBreaker,
  type SpiedBreaker,
} from './circuit-breaker.js';
