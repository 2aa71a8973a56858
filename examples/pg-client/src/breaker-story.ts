import { CallNotPermittedError, CircuitBreaker } from '@breakwater/circuit-breaker';
import { sleep, systemClock } from '@breakwater/core';

/**
 * A short story on the real clock: a flaky backend, the breaker opening on its failure rate,
 * refusing calls, half-opening after the wait, and closing once the backend is well again.
 */
export async function breakerStory(log: (line: string) => void = console.log): Promise<void> {
  let healthy = false;
  const backend = async (): Promise<string> => {
    await sleep(systemClock, 20);
    if (!healthy) throw new Error('503 from the gateway');
    return 'ok';
  };
  const breaker = new CircuitBreaker('pg', {
    slidingWindowSize: 4,
    minimumNumberOfCalls: 4,
    failureRateThreshold: 50,
    waitDurationInOpenState: '600ms',
    permittedNumberOfCallsInHalfOpenState: 2,
  });
  const started = systemClock.now();
  const at = () => `${String(Math.round(systemClock.now() - started)).padStart(5)} ms`;
  breaker.on('failureRateExceeded', (e) => log(`${at()}  failure rate ${e.failureRate}% reached the threshold of 50%`));
  breaker.on('stateTransition', (e) => log(`${at()}  ── ${e.from} → ${e.to}`));

  for (let call = 1; call <= 16; call++) {
    if (call === 9) {
      healthy = true;
      log(`${at()}  (the gateway recovers)`);
    }
    try {
      const result = await breaker.execute(backend);
      log(`${at()}  call ${String(call).padStart(2)}: ${result.padEnd(22)} [${breaker.state}]`);
    } catch (error) {
      const why = error instanceof CallNotPermittedError ? 'refused by the breaker' : (error as Error).message;
      log(`${at()}  call ${String(call).padStart(2)}: ${why.padEnd(22)} [${breaker.state}]`);
    }
    await sleep(systemClock, 100);
  }
  const m = breaker.metrics;
  log(`final: ${breaker.state}, ${m.numberOfBufferedCalls} calls in the window, failure rate ${m.failureRate}%`);
}
