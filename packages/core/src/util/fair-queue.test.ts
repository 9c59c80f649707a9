import { describe, expect, it } from 'vitest';
import { createFairQueue } from './fair-queue.js';

describe('createFairQueue', () => {
  it('lets a group that arrives late go before the second item of a busy group', () => {
    const q = createFairQueue<string>();
    for (let i = 1; i <= 50; i++) q.push('a', `a${i}`);
    expect(q.take()).toBe('a1');
    q.push('b', 'b1');
    expect(q.take()).toBe('b1');
    expect(q.take()).toBe('a2');
    expect(q.size).toBe(48);
  });

  it('peeks at the item take would return, leaving it and the turns as they were', () => {
    const q = createFairQueue<string>();
    q.push('a', 'a1');
    q.push('b', 'b1');
    expect(q.peek((g) => g !== 'a')).toBe('b1');
    expect(q.peek()).toBe('a1');
    expect(q.peek(() => false)).toBeUndefined();
    expect(q.size).toBe(2);
    expect(q.take()).toBe('a1');
    expect(q.take()).toBe('b1');
  });

  it('takes groups in turns, each group in its own order', () => {
    const q = createFairQueue<string>();
    ['a1', 'a2', 'a3'].forEach((x) => q.push('a', x));
    ['b1', 'b2'].forEach((x) => q.push('b', x));
    q.push('c', 'c1');
    const order = [];
    for (let x = q.take(); x !== undefined; x = q.take()) order.push(x);
    expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
  });

  it('skips groups the caller may not start now, and keeps their place', () => {
    const q = createFairQueue<string>();
    q.push('a', 'a1');
    q.push('b', 'b1');
    expect(q.take((g) => g !== 'a')).toBe('b1');
    expect(q.take((g) => g !== 'a')).toBeUndefined();
    expect(q.take()).toBe('a1');
  });

  it('a group that just had a turn and comes back waits behind one that did not', () => {
    const q = createFairQueue<string>();
    q.push('a', 'a1');
    q.push('b', 'b1');
    q.push('b', 'b2');
    expect(q.take()).toBe('a1');
    q.push('a', 'a2');
    expect(q.take()).toBe('b1');
    expect(q.take()).toBe('a2');
  });

  it('removes and drains', () => {
    const q = createFairQueue<string>();
    q.push('a', 'a1');
    q.push('b', 'b1');
    expect(q.remove('a1')).toBe(true);
    expect(q.remove('a1')).toBe(false);
    expect(q.find((x) => x.startsWith('b'))).toBe('b1');
    expect(q.drain()).toEqual(['b1']);
    expect(q.size).toBe(0);
  });
});
