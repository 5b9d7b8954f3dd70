// Errors thrown by executorch-pack: real Error objects with a stable `code`
// (the core's codes, e.g. DUPLICATE_KEY, or INVALID_ARGUMENT for wrong JS
// arguments). Remote sources add HTTP_ERROR (with `status`), NETWORK_ERROR,
// TIMEOUT, ABORTED, SOURCE_CHANGED, SOURCE_TOO_LARGE and RANGE_NOT_FETCHED
// (with `ranges`); see range-reader.mjs and url-source.mjs. Refusals carry
// their details: `keys` (MISSING_EXTERNAL_DATA: the EXTERNAL tensor keys no
// given .ptd holds; MISSING_DELEGATE_DATA: a delegate's keys no output would hold) and `findings` (INVALID_INPUT / INVALID_OUTPUT:
// validate's error findings).
export class EtpackError extends Error {
  constructor(code, message, options = undefined) {
    super(message, options);
    this.name = 'EtpackError';
    this.code = code;
  }
}

export function invalidArgument(message) {
  return new EtpackError('INVALID_ARGUMENT', message);
}

// One convention for every `signal` option: an abort is EtpackError
// ABORTED saying what stopped, with the signal's reason as `cause`.
export function abortedError(signal, what) {
  return new EtpackError('ABORTED', `${what} was aborted`, { cause: signal?.reason });
}

// Errors thrown by the caller's own callbacks (onProgress, a custom data
// serializer): they reach the caller unchanged, never re-coded.
const callerErrors = new WeakSet();

export function markCallerError(e) {
  if ((typeof e === 'object' && e !== null) || typeof e === 'function') callerErrors.add(e);
  return e;
}

// A wasm trap: the module is unusable afterwards (Emscripten's abort()).
export function isWasmTrap(e) {
  return (typeof WebAssembly !== 'undefined' && e instanceof WebAssembly.RuntimeError) ||
    (e instanceof Error && /^Aborted\(/.test(e.message));
}

// Anything thrown inside a public call -> an EtpackError, so that callers can
// rely on `code` (the original stays as `cause`). The JS engine's own errors
// come from the caller's values (a detached buffer, a throwing getter, a
// BigInt where a Number goes), from sizes (stack, memory) or from a wasm trap.
export function coded(e) {
  if (e instanceof EtpackError || callerErrors.has(e)) return e;
  const message = String(e?.message ?? e);
  if (isWasmTrap(e)) {
    const memory = /memory|OOM|alloc/i.test(message);
    return new EtpackError(memory ? 'OUT_OF_MEMORY' : 'INTERNAL',
      `the core stopped (${message}); it has been restarted, nothing was written`, { cause: e });
  }
  if (e instanceof RangeError && /call stack/i.test(message)) {
    return new EtpackError('RESOURCE_LIMIT', `input nested or sized beyond what can be processed (${message})`, { cause: e });
  }
  if (e instanceof RangeError && /memory|allocation|Array buffer/i.test(message)) {
    return new EtpackError('OUT_OF_MEMORY', message, { cause: e });
  }
  if (e instanceof TypeError || e instanceof RangeError) return new EtpackError('INVALID_ARGUMENT', message, { cause: e });
  return new EtpackError('INTERNAL', message, { cause: e });
}
