// The watchdog on a mock clock: a worker that answers its pings is never stopped, one that leaves
// a ping unanswered for the budget is stopped once, nothing is watched while nothing is awaited,
// and a tick made late by the page's own thread judges nothing. Run: node --test web/test/.

import { afterEach, beforeEach, mock, test } from 'node:test';
import assert from 'node:assert/strict';

import { Watchdog } from '../watchdog.js';

const BUDGET = 1000;
const TICK = BUDGET / 4;

let clock;
let pings;
let stalls;

beforeEach(() => {
  mock.timers.enable({ apis: ['setTimeout'] });
  clock = 0;
  pings = 0;
  stalls = 0;
});

afterEach(() => mock.timers.reset());

/** A watchdog whose pings are answered at once when `answering` says so. */
function watchdog(answering) {
  const dog = new Watchdog(BUDGET, {
    ping: () => {
      pings += 1;
      if (answering()) dog.answered();
    },
    onStall: () => (stalls += 1),
    now: () => clock,
  });
  return dog;
}

/** Lets `ms` pass, tick by tick, the page's thread free. */
function pass(ms) {
  for (let t = 0; t < ms; t += TICK) {
    clock += TICK;
    mock.timers.tick(TICK);
  }
}

test('a worker that answers its pings is never stopped', () => {
  watchdog(() => true).watch(true);
  pass(20 * BUDGET);
  assert.equal(stalls, 0);
  assert.equal(pings, 80);
});

test('a ping left unanswered for the budget stops the worker, once', () => {
  watchdog(() => false).watch(true);
  pass(TICK); // the ping goes out
  pass(BUDGET - TICK);
  assert.equal(stalls, 0, 'not before the budget');
  pass(TICK);
  assert.equal(stalls, 1);
  pass(10 * BUDGET);
  assert.equal(stalls, 1, 'watching stops');
  assert.equal(pings, 1);
});

test('a worker answering again in time is not stopped', () => {
  let answering = false;
  const dog = watchdog(() => answering);
  dog.watch(true);
  pass(BUDGET);
  dog.answered(); // a long step ends just within the budget
  answering = true;
  pass(10 * BUDGET);
  assert.equal(stalls, 0);
});

test('nothing is watched while nothing is awaited', () => {
  const dog = watchdog(() => false);
  pass(10 * BUDGET);
  dog.watch(true);
  pass(TICK);
  dog.watch(false); // the answer came: the ping no longer counts
  pass(10 * BUDGET);
  assert.equal(pings, 1);
  assert.equal(stalls, 0);
});

test("a tick made late by the page's own thread judges nothing: the answer may be queued behind it", () => {
  const dog = watchdog(() => false);
  dog.watch(true);
  pass(TICK);
  clock += 3 * BUDGET; // the page's thread was held; then one late tick
  mock.timers.tick(TICK);
  assert.equal(stalls, 0);
  dog.answered(); // the queued answer
  pass(BUDGET - TICK);
  assert.equal(stalls, 0);
  pass(BUDGET + TICK); // the next ping is not answered either
  assert.equal(stalls, 1);
});
