import { readFileSync, writeFileSync } from 'fs';

/**
 * The memory of another process, read from /proc (Linux): its RSS sampled while something runs,
 * and the kernel's own peak mark (VmHWM), which catches a peak between two samples.
 */
export interface MemoryReading {
	rss: number;
	hwm: number;
}

export function readMemory(pid: number): MemoryReading | undefined {
	try {
		const status = readFileSync(`/proc/${pid}/status`, 'utf8');
		const kb = (field: string) =>
			Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
		return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
	} catch {
		return undefined; // the process has ended
	}
}

/**
 * Sets the process's peak mark back to its current RSS (writing 5 to its clear_refs, allowed for
 * a process of the same user); false where the kernel refuses it.
 */
export function resetPeak(pid: number): boolean {
	try {
		writeFileSync(`/proc/${pid}/clear_refs`, '5');
		return true;
	} catch {
		return false;
	}
}

/** Samples a process's RSS every `intervalMs` until stopped; the highest RSS and peak mark seen. */
export class PeakSampler {
	private timer: NodeJS.Timeout;
	private highest: MemoryReading = { rss: 0, hwm: 0 };
	samples = 0;

	constructor(
		private readonly pid: number,
		intervalMs = 50,
	) {
		this.sample();
		this.timer = setInterval(() => this.sample(), intervalMs);
	}

	private sample(): void {
		const reading = readMemory(this.pid);
		if (!reading) return;
		this.samples++;
		this.highest = {
			rss: Math.max(this.highest.rss, reading.rss),
			hwm: Math.max(this.highest.hwm, reading.hwm),
		};
	}

	/** The peak: the kernel's mark where it has one, else the highest sample. */
	stop(): { peak: number; sampledRss: number; samples: number } {
		this.sample();
		clearInterval(this.timer);
		return {
			peak: Math.max(this.highest.hwm, this.highest.rss),
			sampledRss: this.highest.rss,
			samples: this.samples,
		};
	}
}

export const MIB = 1024 * 1024;
export const mib = (bytes: number) =>
	Math.abs(bytes) < MIB / 10
		? `${(bytes / 1024).toFixed(1)} KiB`
		: `${(bytes / MIB).toFixed(1)} MiB`;

export function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
