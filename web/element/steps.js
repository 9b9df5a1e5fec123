// Work done in steps: a generator that yields where its caller may leave the main thread
// (live.js draws a first render's other sections that way) runs whole where no one needs
// to (a re-render, the baked first render in Node).

// Runs steps to their end; answers what they return.
export function runSteps(steps) {
  for (;;) {
    const { done, value } = steps.next();
    if (done) return value;
  }
}
