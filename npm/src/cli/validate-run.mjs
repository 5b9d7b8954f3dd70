// `validate FILE...`: the files grouped into models (a program and the .ptd
// files after it), each model validated on its own, in this thread or in
// worker threads (--jobs N, validate-worker.mjs). A model's result never
// throws: a file that cannot be read or parsed is its `error`.
import { basename } from 'node:path';
import { Worker } from 'node:worker_threads';
import { isUrl, openInputs, reportFetched, shownName } from './inputs.mjs';
import { KINDS, sniffKind } from './contract.mjs';
import { exitStatus } from './report.mjs';

const TAKES = ['pte', 'ptd', 'bpte'];

// validate's command-line options (commands/validate.mjs; the fast path,
// validate-fast.mjs, takes only --json and --format of them).
export const VALIDATE_OPTIONS = {
  json: 'flag', help: 'flag', header: 'list', timeout: 'value', runtime: 'value', backends: 'value', 'deprecated-constant-buffer': 'flag',
  'method-allocator': 'value', arch: 'value', 'no-temp-allocator': 'flag', format: 'value', jobs: 'value',
};

// A .ptd belongs to the program before it on the command line
// (`validate a.pte a.ptd b.pte b.ptd`); one before any program is a model
// of its own. The kind is read from the file's first bytes (a URL's, or a
// file of no known kind's, from its name).
export function groupModels(args) {
  const models = [];
  for (const arg of args) {
    const kind = sniffKind(arg) ?? (/\.ptd$/i.test(arg.replace(/[?#].*$/, '')) ? 'ptd' : null);
    const last = models[models.length - 1];
    if (kind === 'ptd' && last && last.kind !== 'ptd') last.data.push(arg);
    else models.push({ program: arg, kind, data: [] });
  }
  return models;
}

// The data files by their base names (a name met twice gets #2): the names
// findings carry.
function dataRecord(paths, sources) {
  const record = {};
  const nameOf = new Map();
  paths.forEach((p, i) => {
    const base = basename(p.replace(/[?#].*$/, ''));
    let name = base;
    for (let n = 2; name in record; ++n) name = `${base}#${n}`;
    record[name] = sources[i];
    nameOf.set(name, shownName(p));
  });
  return { record, nameOf };
}

// The file a thrown error is about: the one it names, the only file, the
// first of no known kind, else the program.
function errorFile(e, model) {
  if (typeof e?.file === 'string') return e.file;
  const files = [model.program, ...model.data];
  if (files.length === 1) return shownName(model.program);
  const unknown = files.find((f) => !isUrl(f) && sniffKind(f) === null);
  return shownName(unknown ?? model.program);
}

const capital = (s) => s.charAt(0).toUpperCase() + s.slice(1);

export function errorOf(e, model) {
  const file = errorFile(e, model);
  const error = { code: String(e?.code ?? 'INTERNAL'), message: String(e?.message ?? e), file, exitStatus: exitStatus(e) };
  const kind = sniffKind([model.program, ...model.data].find((f) => shownName(f) === file));
  if (kind && !TAKES.includes(kind)) {
    Object.assign(error, {
      code: 'WRONG_FILE_KIND', exitStatus: 1,
      message: `this is ${KINDS[kind].name}; validate takes .pte, .ptd and .bpte files`,
      hint: `${capital(KINDS[kind].name)} is read by: ${KINDS[kind].readBy.map((c) => `executorch-pack ${c.replaceAll('FILE', file)}`).join(', ')}`,
    });
  } else if (typeof e?.hint === 'string') {
    error.hint = e.hint;
  }
  return error;
}

// { files, ok, errors, warnings, error }: findings name the file as given.
export async function validateModel(et, model, { open, target }) {
  const files = [model.program, ...model.data];
  let inputs = [];
  try {
    // A file of a kind validate does not take (an ETDump, safetensors):
    // said as such, not as a bad identifier.
    const other = files.find((f) => !TAKES.includes(sniffKind(f) ?? 'pte'));
    if (other) throw Object.assign(new Error('wrong kind'), { code: 'WRONG_FILE_KIND', file: shownName(other) });
    inputs = await openInputs(et, files, open);
    const { record, nameOf } = dataRecord(model.data, inputs.slice(1));
    // URL inputs: padding past the prefetch is fetched and the call run again.
    const report = await et.withFetchedRanges(() => et.validate(inputs[0], record, target));
    reportFetched(inputs);
    const named = (f) => ({ ...f, file: nameOf.get(f.file) ?? shownName(model.program) });
    return { files: files.map(shownName), ok: report.ok, errors: report.errors.map(named), warnings: report.warnings.map(named), error: null };
  } catch (e) {
    return { files: files.map(shownName), ok: false, errors: [], warnings: [], error: errorOf(e, model) };
  } finally {
    for (const input of inputs) input?.close?.();
  }
}

// Every model's result, in order. jobs > 1: that many worker threads, each
// with its own core, taking the next model as it finishes one.
export async function validateAll(et, models, options, jobs) {
  if (jobs <= 1 || models.length <= 1) {
    const results = [];
    for (const model of models) results.push(await validateModel(et, model, options));
    return results;
  }
  const results = new Array(models.length);
  let next = 0;
  const one = () => new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./validate-worker.mjs', import.meta.url), { workerData: { options } });
    const feed = () => {
      if (next < models.length) {
        const i = next++;
        worker.postMessage({ i, model: models[i] });
      } else {
        worker.postMessage(null);
      }
    };
    worker.on('message', (m) => {
      if (m.i !== undefined) results[m.i] = m.result;
      feed();
    });
    worker.on('error', reject);
    worker.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`a validate worker stopped with status ${code}`))));
  });
  await Promise.all(Array.from({ length: Math.min(jobs, models.length) }, one));
  return results;
}

// The exit status of a run: the worst of its models (2 an input could not
// be read, 1 errors found).
export const runStatus = (results) => results.reduce((s, r) => Math.max(s, r.error ? r.error.exitStatus : r.ok ? 0 : 1), 0);
