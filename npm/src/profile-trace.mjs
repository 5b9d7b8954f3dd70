// A profile (et.profile's result) as Chrome trace-event JSON, the format
// Perfetto (ui.perfetto.dev) and chrome://tracing load: one complete ("X")
// event per run block and per timed event, on one thread (the runtime ran
// them one after another), nested by time: a block, its Method::execute,
// each instruction, and its kernel- or delegate-internal events. Timestamps
// are the file's (nanoseconds from the runtime's clock) in the format's
// microseconds; `args` keep the exact values.
import { invalidArgument } from './errors.mjs';
import { check, checkOptions } from './options.mjs';

const PID = 1;
const TID = 1;

const micros = (v) => Number(v) / 1000;
const exact = (v) => (typeof v === 'bigint' ? v.toString() : v);

function eventName(e) {
  if (e.operator !== undefined) return e.internal ? `${e.name || 'internal'} (${e.operator})` : e.operator;
  if (e.delegate !== undefined) {
    const id = e.delegateDebugIdStr ?? (e.delegateDebugIdInt !== undefined ? `#${e.delegateDebugIdInt}` : null);
    const node = e.delegateNodes?.length ? ` ${e.delegateNodes.map((n) => n.operator).join('+')}` : '';
    return e.internal ? `${e.name || id || 'internal'} (${e.delegate}${node})` : e.delegate;
  }
  return e.name || (e.type ?? 'event');
}

export function profileTrace(profile, options = {}) {
  const processName = checkTraceArguments(profile, options);
  return { traceEvents: [...traceEvents(profile, processName)], displayTimeUnit: 'ns' };
}

// The same trace as JSON text in pieces (each at most a few hundred events,
// `chunkEvents`): the text JSON.stringify(profileTrace(profile)) gives,
// without holding the trace's objects or its whole text (the CLI's
// --trace-out encodes each piece as it comes).
export function* profileTraceText(profile, options = {}, chunkEvents = 512) {
  const processName = checkTraceArguments(profile, options);
  let piece = '{"traceEvents":[';
  let count = 0;
  for (const event of traceEvents(profile, processName)) {
    piece += (count++ ? ',' : '') + JSON.stringify(event);
    if (count % chunkEvents === 0) {
      yield piece;
      piece = '';
    }
  }
  yield `${piece}],"displayTimeUnit":"ns"}`;
}

function checkTraceArguments(profile, options) {
  if (profile === null || typeof profile !== 'object' || !Array.isArray(profile.blocks) ||
    !profile.blocks.every((b) => b !== null && typeof b === 'object' && Array.isArray(b.events))) {
    throw invalidArgument('profileTrace takes a profile (et.profile\'s result: { blocks: [{ events: [...] }], ... })');
  }
  const { processName = 'ExecuTorch runtime' } = checkOptions(options, { processName: check.string }, 'options');
  return processName;
}

function* traceEvents(profile, processName) {
  yield { ph: 'M', pid: PID, tid: TID, name: 'process_name', args: { name: processName } };
  yield { ph: 'M', pid: PID, tid: TID, name: 'thread_name', args: { name: 'Method::execute' } };
  for (const block of profile.blocks) {
    if (block.events.length === 0) continue;
    let start = null;
    let end = null;
    for (const e of block.events) {
      const s = Number(e.startTime);
      const t = Number(e.endTime);
      if (start === null || s < start) start = s;
      if (end === null || t > end) end = t;
    }
    const label = `${block.method ?? '?'} ${block.name}${block.run === null ? '' : ` #${block.run}`}`;
    yield {
      ph: 'X', pid: PID, tid: TID, name: label, cat: 'block', ts: start / 1000, dur: Math.max(0, end - start) / 1000,
      args: { block: block.index, method: block.method, run: block.run },
    };
    for (const e of block.events) {
      const args = { block: block.index, event: e.name, chain: e.chain, instruction: e.instruction, startTime: exact(e.startTime), endTime: exact(e.endTime) };
      if (e.type !== null) args.type = e.type;
      if (e.operator !== undefined) args.operator = e.operator;
      if (e.delegate !== undefined) args.delegate = e.delegate;
      if (e.delegateDebugIdInt !== undefined) args.delegateDebugIdInt = e.delegateDebugIdInt;
      if (e.delegateDebugIdStr !== undefined) args.delegateDebugIdStr = e.delegateDebugIdStr;
      if (e.delegateNodes?.length) args.delegateNodes = e.delegateNodes.map((n) => `${n.index}:${n.operator}`).join(', ');
      const cat = e.chain < 0 ? 'method' : e.internal ? 'internal' : 'instruction';
      // An event ending before it starts has no duration (null): 0 here.
      yield {
        ph: 'X', pid: PID, tid: TID, name: eventName(e), cat,
        ts: micros(e.startTime), dur: Math.max(0, Number(e.duration ?? 0)) / 1000, args,
      };
    }
  }
}
