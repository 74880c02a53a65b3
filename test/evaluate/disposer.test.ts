// The Disposer behind `await using` in evaluate(): steps run last-in, first-out, every one even when
// an earlier one throws, the first failure rethrown; moved steps belong to the new stack only.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Disposer } from '../../src/evaluate/disposer.js';

describe('Disposer', () => {
  it('releases in reverse order at the end of an await using block, also when the block throws', async () => {
    const order: string[] = [];
    await assert.rejects(
      (async () => {
        await using stack = new Disposer();
        stack.defer(() => order.push('first opened'));
        stack.defer(async () => {
          order.push('second opened');
        });
        throw new Error('the run failed');
      })(),
      /the run failed/,
    );
    assert.deepEqual(order, ['second opened', 'first opened']);
  });

  it('runs every step when one throws, then rethrows the first failure', async () => {
    const order: string[] = [];
    const stack = new Disposer();
    stack.defer(() => order.push('a'));
    stack.defer(() => {
      throw new Error('b failed');
    });
    stack.defer(() => {
      throw new Error('c failed');
    });
    await assert.rejects(stack[Symbol.asyncDispose](), /c failed/);
    assert.deepEqual(order, ['a']);
    await stack[Symbol.asyncDispose]();
    assert.deepEqual(order, ['a'], 'each step runs once');
  });

  it('move hands the steps to a new stack; use releases a disposable resource', async () => {
    const order: string[] = [];
    const stack = new Disposer();
    stack.defer(() => order.push('moved'));
    const moved = stack.move();
    await stack[Symbol.asyncDispose]();
    assert.deepEqual(order, []);
    const outer = new Disposer();
    outer.use(moved);
    await outer[Symbol.asyncDispose]();
    assert.deepEqual(order, ['moved']);
  });
});
