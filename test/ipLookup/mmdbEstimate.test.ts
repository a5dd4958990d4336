import { execFileSync } from 'child_process';
import path from 'path';

/**
 * The MMDB decoder's estimate of what a record makes (mmdbDecoder.ts) is what its bound and the
 * reader's record cache count: it must be V8's heap within a factor of two, for every kind of
 * value, or a file of the kind it undercounts holds many times the bound (65,000 empty byte
 * arrays, 65 KB of file, were 1 MiB in an estimate of 16 bytes a value, and 12 MiB of heap). Each
 * kind fills a record to the bound, decoded eight times and kept, in a process of its own whose
 * heap is measured after a full garbage collection (mmdbEstimateProbe.ts).
 */

const PROBE = path.join(__dirname, 'mmdbEstimateProbe.ts');
const REGISTER = path.join(__dirname, '..', 'harness', 'register.js');

const measured = JSON.parse(
	execFileSync(process.execPath, ['--expose-gc', '-r', REGISTER, PROBE], { encoding: 'utf8' }),
) as Record<string, { estimate: number; heap: number }>;

test.each(Object.keys(measured))('a record of %s takes at most twice its estimate', (kind) => {
	const { estimate, heap } = measured[kind];
	expect(estimate).toBeGreaterThan(0);
	expect(heap / estimate).toBeLessThanOrEqual(2);
});
