// What the profile view draws from a whole profile, computed once and, for
// a profile joined in profile-worker.mjs, in the worker: the time per
// instruction (shadeInstructions) and, per execute block of more than
// MAX_EVENT_BARS events, its time span and
// the MAX_EVENT_BARS longest events (timelineEl). Over one run of 300,000
// events these loops (string keys per event, a sort of every event) took
// the page's thread one ~300 ms task; the worker sends their result
// (small: one entry per instruction, 1,500 indices per long block) and
// the page only looks them up. No DOM here: the worker imports it.
export const MAX_EVENT_BARS = 1500;

// One block's events -> [start, end, drawn indices (longest first; null
// when every event is drawn)].
function spanOf(events) {
  let start = Infinity, end = -Infinity;
  for (const e of events) { start = Math.min(start, Number(e.startTime)); end = Math.max(end, Number(e.endTime)); }
  let drawn = null;
  if (events.length > MAX_EVENT_BARS) {
    // The order a stable sort by duration (longest first) gives: ties keep the file's order.
    const d = events.map((e) => Number(e.duration));
    drawn = d.map((_, i) => i).sort((x, y) => d[y] - d[x] || x - y).slice(0, MAX_EVENT_BARS);
  }
  return [start, end, drawn];
}

// profile -> { times: [[key, total ns]], max, spans: [[block position,
// ...spanOf]] }; key: "method|chain:instruction". Spans only of the blocks
// of more than MAX_EVENT_BARS events (a few: each is that many events of
// the file); a shorter block's is found when its timeline is drawn (200,000
// runs of one event each would otherwise be 200,000 entries to register).
export function profileDigest(profile) {
  const time = new Map();
  let max = 0;
  const spans = [];
  profile.blocks.forEach((b, pos) => {
    if (b.run === null) return;
    for (const e of b.events) {
      if (e.chain < 0 || e.internal) continue;
      const k = `${b.method}|${e.chain}:${e.instruction}`;
      const t = (time.get(k) ?? 0) + Math.max(0, Number(e.duration));
      time.set(k, t);
      max = Math.max(max, t);
    }
    if (b.events.length > MAX_EVENT_BARS) spans.push([pos, ...spanOf(b.events)]);
  });
  return { times: [...time], max, spans };
}

// The digest of each profile the page holds (keyed by the profile and by
// its block objects), filled by useDigest or on first use.
const byProfile = new WeakMap();
const byBlock = new WeakMap();

// Registers `digest` (profileDigest's, possibly computed elsewhere) for `profile`.
export function useDigest(profile, digest) {
  const times = new Map(digest.times);
  byProfile.set(profile, { times, max: digest.max });
  for (const [pos, start, end, drawn] of digest.spans) {
    const b = profile.blocks[pos];
    if (b) byBlock.set(b, { start, end, drawn: drawn ? drawn.map((i) => b.events[i]) : b.events });
  }
}

const digestOf = (profile) => {
  if (!byProfile.has(profile)) useDigest(profile, profileDigest(profile));
  return byProfile.get(profile);
};

// Total execute time per "method|chain:instruction" and its largest value.
export const instructionTimes = (profile) => digestOf(profile);

// One block's {start, end, drawn}: its span and the events its timeline draws.
export function blockSpan(block) {
  let span = byBlock.get(block);
  if (!span) {
    const [start, end, drawn] = spanOf(block.events);
    span = { start, end, drawn: drawn ? drawn.map((i) => block.events[i]) : block.events };
    byBlock.set(block, span);
  }
  return span;
}
