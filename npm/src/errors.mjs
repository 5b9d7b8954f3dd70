// Errors thrown by executorch-pack: real Error objects with a stable `code`
// (the core's codes, e.g. DUPLICATE_KEY, or INVALID_ARGUMENT for wrong JS
// arguments). Remote sources add HTTP_ERROR (with `status`), NETWORK_ERROR,
// TIMEOUT, ABORTED, SOURCE_CHANGED, SOURCE_TOO_LARGE and RANGE_NOT_FETCHED
// (with `ranges`); see range-reader.mjs and url-source.mjs. Refusals carry
// their details: `keys` (MISSING_EXTERNAL_DATA: the EXTERNAL tensor keys no
// given .ptd holds) and `findings` (INVALID_INPUT / INVALID_OUTPUT:
// validate's error findings).
export class EtpackError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'EtpackError';
    this.code = code;
  }
}

export function invalidArgument(message) {
  return new EtpackError('INVALID_ARGUMENT', message);
}
