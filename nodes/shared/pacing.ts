import { sleep } from 'n8n-workflow';

/**
 * Spaces request starts to a rate. The interval carries a 5% margin: requests leave on time but
 * reach the service with jitter (the first of a run, on a cold connection, is often tens of
 * milliseconds slower than the next), and one that lands a hair early against a one-a-second
 * plan is a 429. Measured: with 2% (20 ms at 1/s) the benchmark drew a 429; 5% gives 50 ms.
 */
export class Pacer {
	private nextStart = 0;

	private readonly interval: number;

	constructor(requestsPerSecond: number) {
		this.interval = requestsPerSecond > 0 ? (1000 / requestsPerSecond) * 1.05 : 0;
	}

	/** Resolves when the caller may send its next request. */
	async waitTurn(): Promise<void> {
		if (this.interval === 0) return;
		const now = Date.now();
		const start = Math.max(now, this.nextStart);
		this.nextStart = start + this.interval;
		if (start > now) await sleep(start - now);
	}
}

/**
 * One pacer per key and rate, shared by every run in this n8n process: two executions using the
 * same free-plan key at once still stay under its rate together.
 */
const pacers = new Map<string, Pacer>();

export function pacerFor(keyIdentity: string, requestsPerSecond: number): Pacer {
	const id = `${keyIdentity}@${requestsPerSecond}`;
	let pacer = pacers.get(id);
	if (!pacer) {
		pacer = new Pacer(requestsPerSecond);
		pacers.set(id, pacer);
	}
	return pacer;
}

/** How many items may be in flight: one at a time on a one-a-second plan, more as the rate allows. */
export function concurrencyFor(requestsPerSecond: number): number {
	if (requestsPerSecond <= 0) return 8;
	return Math.min(8, Math.max(1, Math.floor(requestsPerSecond)));
}

/** Runs `work` for each index with at most `limit` in flight; stops taking new work after a failure. */
export async function forEachLimited(
	count: number,
	limit: number,
	work: (index: number) => Promise<void>,
): Promise<void> {
	let next = 0;
	let failure: { error: unknown } | undefined;
	const lane = async () => {
		while (failure === undefined && next < count) {
			const index = next++;
			try {
				await work(index);
			} catch (error) {
				failure ??= { error };
			}
		}
	};
	await Promise.all(Array.from({ length: Math.min(limit, count) }, lane));
	if (failure) throw failure.error;
}
