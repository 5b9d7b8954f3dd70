// Huge tables through the CLI (issues 28 and 29): inspect of a .ptd with a
// million named-data entries (distinct keys on one buffer; one shared key,
// one layout and one segment: 16 MB) and the weights matcher over a
// safetensors checkpoint of a million tensors. Builds the files in a
// temporary folder, runs each command in a child process and prints wall
// time, peak RSS, output size and exit status. Prints figures; asserts
// nothing (a benchmark, not a test).
//
//   node bench/columns.mjs              every case
//   node bench/columns.mjs shared       only the files whose names contain a word
//   BENCH_DIR=/path                     where temporary files go
//
// Targets: inspect --json of the 1M-entry .ptd well under 1 s with peak RSS
// a small multiple of the file; the 1M-tensor checkpoint's header read with
// memory under ~3x the header (on top of Node's own ~50 MiB).
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import init from '../npm/index.node.mjs';
import { runCli } from './measure.mjs';
import { manyKeysPtd, sharedKeyPtd } from '../tests/js/helpers/hostile_files.mjs';
import { safetensorsBytes } from '../tests/js/helpers/safetensors.mjs';

const MiB = 1 << 20;

// A checkpoint of `count` one-element F32 tensors with 15-character names
// (about 57 bytes of header per tensor: 57 MB for a million).
function manyTensorsSafetensors(count) {
  const four = new Uint8Array(4);
  const tensors = Array.from({ length: count }, (_, i) => ({ name: `layer.${String(i).padStart(7, '0')}.w`, dtype: 'F32', shape: [1], bytes: four }));
  return safetensorsBytes(tensors);
}

// A program whose one external tensor is the checkpoint's first (the rest
// come back as unused names).
function oneExternalPte(et) {
  return et.serializePteBinary({ program: { version: 0, execution_plan: [{ name: 'forward', values: [{ val_type: 'Tensor', val: {
    scalar_type: 6, sizes: [1], dim_order: [0], extra_tensor_info: { fully_qualified_name: 'layer.0000000.w', location: 1 },
  } }], inputs: [], outputs: [], chains: [], operators: [], delegates: [], non_const_buffer_sizes: [0] }] } });
}

const et = await init();
const dir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'etpack-columns-'));
try {
  const cases = [
    { name: 'keys-1m.ptd', make: () => manyKeysPtd(et, 1_000_000), commands: (p) => [['inspect', p], ['inspect', '--json', p]] },
    { name: 'shared-key-1m.ptd', make: () => sharedKeyPtd(1_000_000), commands: (p) => [['inspect', p], ['inspect', '--json', p], ['validate', p]] },
    {
      name: 'tensors-1m.safetensors', make: () => manyTensorsSafetensors(1_000_000),
      commands: (p) => {
        writeFileSync(join(dir, 'one.pte'), oneExternalPte(et));
        return [['weights', join(dir, 'one.pte'), '--from', p, '-o', join(dir, 'out.ptd'), '--force']];
      },
    },
  ];
  console.log(`executorch-pack huge tables — node ${process.version}, ${new Date().toISOString()}`);
  console.log('file                    size       command           time      peak RSS   output     exit  first line');
  const words = process.argv.slice(2);
  for (const c of cases.filter((x) => !words.length || words.some((w) => x.name.includes(w)))) {
    const path = join(dir, c.name);
    writeFileSync(path, c.make());
    const size = statSync(path).size;
    for (const args of c.commands(path)) {
      const r = runCli(dir, args);
      const shown = args.filter((a) => !a.startsWith('/')).join(' ');
      console.log(`${c.name.padEnd(23)} ${`${(size / MiB).toFixed(1)} MiB`.padEnd(10)} ${shown.padEnd(17)} ${`${(r.ms / 1000).toFixed(2)} s`.padEnd(9)} ` +
        `${`${r.rssMiB.toFixed(0)} MiB`.padEnd(10)} ${`${r.outMiB.toFixed(1)} MiB`.padEnd(10)} ${String(r.status).padEnd(5)} ${r.first.slice(0, 80)}`);
    }
    rmSync(path, { force: true });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
