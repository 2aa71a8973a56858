import { breakerStory } from './breaker-story.js';

console.log('Breakwater — a circuit breaker on the real clock\n');
await breakerStory();
