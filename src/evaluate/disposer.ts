// A stack of release steps for `await using` (Node 20 has Symbol.asyncDispose but not
// AsyncDisposableStack): what a run opens is released in reverse order, every step even when an
// earlier one throws, and the first failure is rethrown once all have run.

/** Release steps run last-in, first-out when the stack is disposed. */
export class Disposer implements AsyncDisposable {
  private steps: (() => unknown)[] = [];

  /** Adds a release step (run once, when the stack is disposed). */
  defer(step: () => unknown): void {
    this.steps.push(step);
  }

  /** Adds a resource whose own disposal releases it. */
  use<T extends AsyncDisposable>(resource: T): T {
    this.defer(() => resource[Symbol.asyncDispose]());
    return resource;
  }

  /** Hands every step over to a new stack (this one then releases nothing), as DisposableStack.move. */
  move(): Disposer {
    const moved = new Disposer();
    moved.steps = this.steps;
    this.steps = [];
    return moved;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    const steps = this.steps;
    this.steps = [];
    let failure: { error: unknown } | undefined;
    for (const step of steps.reverse()) {
      try {
        await step();
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure) throw failure.error;
  }
}
