// Command-line arguments: parsing against a table of options, and the
// checks of values that must never reach the library unchecked (alignments,
// tags used as file names). Every mistake is a UsageError (exit status 2).

import { MAX_ALIGNMENT as LIBRARY_MAX_ALIGNMENT, editDistance } from '../options.mjs';

// A mistake on the command line. `code` is printed with the message
// (USAGE unless a more precise one says what was wrong).
export class UsageError extends Error {
  constructor(message, command, code = 'USAGE') {
    super(message);
    this.command = command;
    this.code = code;
  }
}

// The known word closest to `word`, when it is close enough to be a typo
// (or `word` is a prefix of exactly one known word); else null.
export function closest(word, known) {
  const prefixed = known.filter((k) => word.length >= 3 && k.startsWith(word));
  if (prefixed.length === 1) return prefixed[0];
  let best = null;
  let bestDistance = Infinity;
  for (const k of known) {
    const d = editDistance(word, k);
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return bestDistance <= Math.max(1, Math.floor(Math.min(word.length, best?.length ?? 0) / 3)) ? best : null;
}

// Parses argv against a table of options: {name: 'flag' | 'value' | 'list' | 'optional'}.
export function parseArgs(argv, spec, command) {
  const options = {};
  const positional = [];
  const aliases = { '-o': '--output', '-h': '--help' };
  for (let i = 0; i < argv.length; ++i) {
    let arg = argv[i];
    if (arg === '--') {
      for (const rest of argv.slice(i + 1)) positional.push(rest);
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positional.push(arg);
      continue;
    }
    arg = aliases[arg] ?? arg;
    let name = arg.replace(/^--/, '');
    let inline;
    const eq = name.indexOf('=');
    if (eq >= 0) {
      inline = name.slice(eq + 1);
      name = name.slice(0, eq);
    }
    const kind = Object.hasOwn(spec, name) ? spec[name] : undefined;
    if (!kind) {
      const guess = closest(name, Object.keys(spec));
      throw new UsageError(`unknown option ${argv[i]}${guess ? ` (did you mean --${guess}?)` : ''}`, command);
    }
    if (kind === 'flag') {
      if (inline !== undefined) throw new UsageError(`--${name} takes no value`, command);
      options[name] = true;
    } else if (kind === 'optional') {
      options[name] = inline ?? true;
    } else {
      let value = inline;
      if (value === undefined) {
        if (i + 1 >= argv.length) throw new UsageError(`--${name} needs a value`, command);
        value = argv[++i];
      }
      if (kind === 'list') (options[name] ??= []).push(value);
      else options[name] = value;
    }
  }
  return { options, positional };
}

// Integers written in decimal digits only (no sign, exponent or fraction),
// within the safe range.
function decimal(options, name, command, what) {
  const v = options[name];
  if (v === undefined) return undefined;
  if (!/^\d{1,16}$/.test(v) || !Number.isSafeInteger(Number(v))) {
    throw new UsageError(`--${name} must be ${what}, got '${v}'`, command);
  }
  return Number(v);
}

export function nonNegativeInt(options, name, command) {
  return decimal(options, name, command, 'a non-negative integer');
}

// Largest alignment accepted: the library's own limit (options.mjs, 2^24),
// so a value the help allows is never refused later as a content error.
export const MAX_ALIGNMENT = LIBRARY_MAX_ALIGNMENT;

// An alignment: a positive integer up to MAX_ALIGNMENT; `powerOfTwo` where
// the format requires it (constant tensor and delegate alignments).
export function alignment(options, name, command, { powerOfTwo = false } = {}) {
  const what = powerOfTwo ? `a power of two from 1 to 2^24` : `an integer from 1 to 2^24`;
  const v = decimal(options, name, command, what);
  if (v === undefined) return undefined;
  if (v < 1 || v > MAX_ALIGNMENT || (powerOfTwo && (v & (v - 1)) !== 0)) {
    throw new UsageError(`--${name} must be ${what}, got ${v}`, command, 'INVALID_ALIGNMENT');
  }
  return v;
}

// A tag names a data file (<tag>.ptd, beside the output): a plain file
// name that is not hidden, with no folder part and no control characters.
export function checkTag(tag, option, command) {
  const problem = tag === '' ? 'is empty'
    : /[/\\]/.test(tag) ? 'contains a path separator'
      : tag.startsWith('.') ? 'starts with a dot (a hidden or relative name)'
        : /[\u0000-\u001f\u007f-\u009f]/.test(tag) ? 'contains control characters'
          : tag.length > 200 ? 'is longer than 200 characters'
            : null;
  if (problem) {
    throw new UsageError(`${option} '${tag}' ${problem}; a tag must be a plain file name (it names <tag>.ptd)`, command, 'INVALID_TAG');
  }
  return tag;
}
