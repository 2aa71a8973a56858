// The example of the README's "Standard decorators: @resilient", as written there (the types it
// leaves out declared here) but without NestJS's @Injectable(): the same classes with standard
// decorators. Type-checked by src/resilient-tsc.test.ts, never run; test/legacy/readme.ts is the
// example with @Injectable(), under NestJS's tsconfig.
import { CircuitBreaker, type CircuitBreakerRegistry } from '@breakwater/circuit-breaker';
import { currentCallContext, decorate, resilient, type Pipeline } from '@breakwater/decorators';
import { Retry } from '@breakwater/retry';
import { TimeLimiter } from '@breakwater/time-limiter';

interface Order {
  readonly id: string;
}
interface Receipt {
  readonly orderId: string;
}
interface PaymentClient {
  charge(order: Order, options: { signal: AbortSignal }): Promise<Receipt>;
}
interface Logger {
  debug(message: string): void;
}

const payments = decorate('payments')
  .withRetry(new Retry('payments', { maxAttempts: 3, waitDuration: '200ms' }))
  .withCircuitBreaker(new CircuitBreaker('payments', { failureRateThreshold: 50 }))
  .withTimeLimiter(new TimeLimiter('payments', { timeoutDuration: '2s' }));

// Its collaborators injected through the constructor, one method per backend call.
export class PaymentsService {
  constructor(
    private readonly client: PaymentClient,
    private readonly log: Logger,
  ) {}

  @resilient(payments) // one pipeline, so one breaker, for every instance
  async charge(order: Order): Promise<Receipt> {
    const { signal, attempt } = currentCallContext(); // read before the first await
    this.log.debug(`charge ${order.id}, attempt ${attempt}`);
    return this.client.charge(order, { signal }); // a time-out aborts `signal`
  }
}

// One pipeline per instance: each tenant's own breaker.
export class TenantPaymentsService {
  readonly pipeline: Pipeline;

  constructor(
    readonly tenant: string,
    breakers: CircuitBreakerRegistry,
    private readonly client: PaymentClient,
  ) {
    this.pipeline = decorate(tenant).withCircuitBreaker(breakers.get(tenant));
  }

  @resilient((self: TenantPaymentsService) => self.pipeline) // annotate `self`: TypeScript does not infer it
  async charge(order: Order): Promise<Receipt> {
    return this.client.charge(order, { signal: currentCallContext().signal });
  }
}

export async function example(client: PaymentClient, log: Logger, order: Order): Promise<Receipt> {
  return new PaymentsService(client, log).charge(order); // (order: Order) => Promise<Receipt>, as declared
}
