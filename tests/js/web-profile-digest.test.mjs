// web/profile-digest.mjs: what the profile view draws, found once (in the
// profile's worker): the same events in the same order as the page's own
// sort drew, and the same time per instruction, after crossing to the page
// packed (core-pack.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_EVENT_BARS, profileDigest, useDigest, blockSpan, instructionTimes } from '../../web/profile-digest.mjs';
import { packResult, unpackResult } from '../../web/core-pack.mjs';

// One run of 5,000 events with many equal durations (ties keep the file's
// order), method-level and internal events, bigint times as the core gives.
function profile() {
  const events = [];
  for (let i = 0; i < 5000; ++i) {
    const d = BigInt((i * 7919) % 40);
    events.push({ name: `e${i}`, chain: i % 50 === 0 ? -1 : 0, instruction: i % 13, internal: i % 17 === 0,
      startTime: BigInt(i * 50), endTime: BigInt(i * 50) + d, duration: d });
  }
  return { blocks: [{ index: 0, run: null, method: 'forward', events: [] }, { index: 1, run: 0, method: 'forward', events }] };
}

test('the digest draws what a stable sort by duration drew, and sums the same times', async () => {
  const p = profile();
  const events = p.blocks[1].events;
  const expected = [...events].sort((a, b) => Number(b.duration) - Number(a.duration)).slice(0, MAX_EVENT_BARS);
  const time = new Map();
  for (const e of events) {
    if (e.chain < 0 || e.internal) continue;
    const k = `forward|${e.chain}:${e.instruction}`;
    time.set(k, (time.get(k) ?? 0) + Number(e.duration));
  }
  // Found here (the page's fallback) and found elsewhere, then sent packed (the worker's way).
  const fresh = blockSpan(p.blocks[1]);
  assert.deepEqual(fresh.drawn, expected);
  assert.equal(fresh.start, 0);
  assert.equal(fresh.end, Math.max(...events.map((e) => Number(e.endTime))));
  const other = profile();
  const digest = await unpackResult(packResult(profileDigest(other)).packed);
  useDigest(other, digest);
  const sent = blockSpan(other.blocks[1]);
  assert.deepEqual(sent.drawn.map((e) => e.name), expected.map((e) => e.name));
  assert.deepEqual([...instructionTimes(other).times].sort(), [...time].sort());
  assert.equal(instructionTimes(other).max, Math.max(...time.values()));
});
