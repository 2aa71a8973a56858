// A stand-in for NestJS's own `@Injectable()`, typed as @nestjs/common types it (a legacy class
// decorator), so the fixtures mix it with @resilient as a Nest service does — without a NestJS
// dependency. `injected` records the classes it was applied to.

/** The names of the classes `@Injectable()` was applied to, in order. */
export const injected: string[] = [];

/** `@Injectable()`: marks a class as a provider (records its name). */
export function Injectable(): ClassDecorator {
  return (target) => {
    injected.push(target.name);
  };
}
