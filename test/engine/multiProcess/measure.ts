import type { Sandbox } from '../../sandbox/server';
import { runInProcesses } from './processes';
import type { Report } from './runner';

/** What several processes sharing one key did, read from the sandbox's request log. */
export interface SharedKeyRun {
	reports: Report[];
	ibansOf(process: number): string[];
	requests: number;
	accepted: number;
	refused: number;
	/** Items with a request after their success (must be none). */
	resent: number;
	/** Items refused (429) that no later request got through for (must be none). */
	refusedNeverAccepted: string[];
	/** Accepted requests per second while every process was using the key. */
	sharedRate: number;
	wholeRunRate: number;
	/** Seconds from the first request to each process's last one: how evenly they shared. */
	finishedAfter: number[];
}

export async function runSharedKey(
	sandbox: Sandbox,
	rate: number,
	processes: number,
	itemsEach: number,
): Promise<SharedKeyRun> {
	sandbox.reset();
	sandbox.limitRate('iban', rate);
	const ibansOf = (process: number) =>
		Array.from({ length: itemsEach }, (_, index) => `DE89370400440532013000-p${process}-${index}`);
	const reports = await runInProcesses(processes, (index) => ({
		baseUrl: sandbox.baseUrls.iban,
		apiKey: sandbox.keys.iban,
		requestsPerSecond: rate,
		ibans: ibansOf(index),
	}));
	const log = sandbox.requests('iban');
	const accepted = log.filter((entry) => entry.status === 200);
	const succeededAt = new Map<string, number>();
	const refusedLast = new Set<string>();
	let resent = 0;
	for (const entry of log) {
		if (succeededAt.has(entry.query.iban)) resent++;
		if (entry.status === 200) succeededAt.set(entry.query.iban, entry.at);
		if (entry.status === 429) refusedLast.add(entry.query.iban);
		else if (entry.status === 200) refusedLast.delete(entry.query.iban);
	}
	// From the first request to the last request of the process that finished first (after
	// that, one process is left on the key on its own and wins its rate back).
	const lastOf = (process: number) =>
		Math.max(
			...log.filter((entry) => entry.query.iban.includes(`-p${process}-`)).map((entry) => entry.at),
		);
	const sharedUntil = Math.min(...reports.map((_, index) => lastOf(index)));
	const shared = accepted.filter((entry) => entry.at <= sharedUntil);
	const perSecond = (entries: typeof log) =>
		(entries.length - 1) / ((entries[entries.length - 1].at - entries[0].at) / 1000);
	return {
		reports,
		ibansOf,
		requests: log.length,
		accepted: accepted.length,
		refused: log.filter((entry) => entry.status === 429).length,
		resent,
		refusedNeverAccepted: [...refusedLast],
		sharedRate: perSecond(shared),
		wholeRunRate: perSecond(accepted),
		finishedAfter: reports.map((_, index) => (lastOf(index) - log[0].at) / 1000),
	};
}

export function describeRun(run: SharedKeyRun, rate: number, processes: number): string {
	return `${processes} processes at ${rate}/s on one key: ${run.requests} requests, ${run.refused} 429s (${((100 * run.refused) / run.requests).toFixed(1)}%), accepted ${run.sharedRate.toFixed(2)}/s = ${(run.sharedRate / rate).toFixed(3)} of the limit while shared (whole run ${(run.wholeRunRate / rate).toFixed(3)}), processes done after ${run.finishedAfter.map((seconds) => seconds.toFixed(0)).join(', ')} s, ${run.resent} sent again after success`;
}
