// A NestJS service (an @Injectable() class, its client injected through the constructor)
// decorated with @resilient as a legacy decorator: run by src/resilient-legacy.test.ts (compiled
// by tsc's transpiler with experimentalDecorators and emitDecoratorMetadata on) and type-checked
// by src/resilient-tsc.test.ts (contract: docs/decorators.md).
import { currentCallContext, resilient, type Pipeline } from '@breakwater/decorators';
import { Injectable } from './nest.js';

export interface PaymentRequest {
  readonly orderId: string;
  readonly amount: number;
}
export interface Receipt {
  readonly orderId: string;
  readonly by: string;
  readonly attempt: number;
}
/** The backend client the service is given: the test scripts it. */
export interface PaymentClient {
  charge(req: PaymentRequest, options: { signal: AbortSignal }): Promise<void>;
}

/** The shared form: every gateway of the returned class runs through `pipeline` (one breaker for all). */
export function sharedGateway(pipeline: Pipeline) {
  @Injectable()
  class PaymentGateway {
    constructor(
      readonly name: string,
      readonly client: PaymentClient, // NestJS injects it: emitDecoratorMetadata records its type
    ) {}

    @resilient(pipeline)
    async pay(req: PaymentRequest): Promise<Receipt> {
      const { signal, attempt } = currentCallContext(); // before the first await
      await this.client.charge(req, { signal });
      return { orderId: req.orderId, by: this.name, attempt };
    }
  }
  return PaymentGateway;
}

/** The per-instance form: each gateway runs through the pipeline it was given. */
@Injectable()
export class TenantGateway {
  static resolved = 0;

  constructor(
    readonly name: string,
    readonly pipeline: Pipeline,
    private readonly client: PaymentClient,
  ) {}

  @resilient((self: TenantGateway) => {
    TenantGateway.resolved++;
    return self.pipeline;
  })
  async pay(req: PaymentRequest): Promise<Receipt> {
    const { signal, attempt } = currentCallContext();
    await this.client.charge(req, { signal });
    return { orderId: req.orderId, by: this.name, attempt };
  }
}
