import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';

/**
 * The package's import graph, read with the TypeScript compiler's own pre-scan of a file's
 * imports, so that `import type` and `export ... from` count as `import` does: a type-only edge
 * still ties two rooms together for the reader, even though it costs nothing at run time.
 * A room is a folder the code is grouped by: each folder of nodes/shared, each node's folder,
 * credentials/shared and credentials.
 */

/** Source text by path relative to the package root, with forward slashes. */
export type Sources = Map<string, string>;

/** One file importing another, both named relative to the package root. */
export interface Edge {
	from: string;
	to: string;
}

/** The package's TypeScript sources: every .ts file under nodes/ and credentials/. */
export function packageSources(root: string): Sources {
	const sources: Sources = new Map();
	const walk = (folder: string) => {
		for (const entry of fs.readdirSync(path.join(root, folder), { withFileTypes: true })) {
			const relative = `${folder}/${entry.name}`;
			if (entry.isDirectory()) walk(relative);
			else if (entry.name.endsWith('.ts'))
				sources.set(relative, fs.readFileSync(path.join(root, relative), 'utf8'));
		}
	};
	for (const top of ['nodes', 'credentials']) walk(top);
	return sources;
}

/** Every import of one source file by another (relative specifiers; packages are not ours). */
export function importEdges(sources: Sources): Edge[] {
	const edges: Edge[] = [];
	for (const [from, text] of sources) {
		const { importedFiles } = ts.preProcessFile(text, true, true);
		for (const { fileName: specifier } of importedFiles) {
			if (!specifier.startsWith('.')) continue;
			const target = path.posix.join(path.posix.dirname(from), specifier);
			const to = [target, `${target}.ts`, `${target}/index.ts`].find((file) => sources.has(file));
			if (to !== undefined) edges.push({ from, to });
		}
	}
	return edges;
}

/** The room a file belongs to: nodes/shared/<folder>, nodes/<Node>, credentials/shared or credentials. */
export function roomOf(file: string): string {
	const [top, second, third] = file.split('/');
	if (top === 'nodes') {
		if (second !== 'shared') return `nodes/${second}`;
		return third.endsWith('.ts') ? 'nodes/shared' : `nodes/shared/${third}`;
	}
	return second === 'shared' ? 'credentials/shared' : top;
}

/**
 * The rooms from the bottom up, as CONTRIBUTING.md states them: a room imports only rooms of the
 * layers below its own, never one of its own layer or above. `nodes/*` is each node's folder.
 */
export const LAYERS: readonly (readonly string[])[] = [
	['nodes/shared/engine', 'credentials/shared'],
	['nodes/shared/values', 'credentials'],
	['nodes/shared/parameters'],
	['nodes/shared/binary'],
	['nodes/shared/csv'],
	['nodes/shared/ipDatabases'],
	['nodes/*'],
];

/** The credential rooms: n8n loads a credential type without any node, so they import nothing under nodes/. */
const CREDENTIAL_ROOMS = ['credentials', 'credentials/shared'];

/** The layer of a room (0 the bottom); undefined for a room LAYERS does not place. */
function layerOf(room: string): number | undefined {
	const placed = (pattern: string) =>
		pattern === room ||
		(pattern.endsWith('/*') &&
			room.startsWith(pattern.slice(0, -1)) &&
			!room.startsWith('nodes/shared'));
	const layer = LAYERS.findIndex((rooms) => rooms.some(placed));
	return layer < 0 ? undefined : layer;
}

/**
 * Every import that goes up or sideways (to a room of its own layer or above, or from a credential
 * room into nodes/), each as `file imports file: the rule`, and every room LAYERS does not place.
 */
export function upwardImports(sources: Sources): string[] {
	const found: string[] = [];
	const rooms = new Set([...sources.keys()].map(roomOf));
	for (const room of [...rooms].sort())
		if (layerOf(room) === undefined)
			found.push(`${room} is a room the layers do not place (importGraph.ts LAYERS)`);
	const inPathOrder = importEdges(sources).sort((a, b) =>
		`${a.from} ${a.to}`.localeCompare(`${b.from} ${b.to}`),
	);
	for (const { from, to } of inPathOrder) {
		const [fromRoom, toRoom] = [roomOf(from), roomOf(to)];
		const [fromLayer, toLayer] = [layerOf(fromRoom), layerOf(toRoom)];
		if (fromRoom === toRoom || fromLayer === undefined || toLayer === undefined) continue;
		if (CREDENTIAL_ROOMS.includes(fromRoom) && toRoom.startsWith('nodes/'))
			found.push(`${from} imports ${to}: ${fromRoom} imports nothing under nodes/`);
		else if (toLayer >= fromLayer)
			found.push(
				`${from} imports ${to}: ${fromRoom} (layer ${fromLayer}) imports only rooms of the layers below it, and ${toRoom} is of layer ${toLayer}`,
			);
	}
	return found;
}

/** An edge between rooms: the first import (in path order) that makes it, and how many do. */
interface RoomEdge {
	first: Edge;
	imports: number;
}

/** The edges between rooms, keyed `from to`. */
export function roomEdges(edges: Edge[]): Map<string, RoomEdge> {
	const between = new Map<string, RoomEdge>();
	const inPathOrder = [...edges].sort((a, b) =>
		`${a.from} ${a.to}`.localeCompare(`${b.from} ${b.to}`),
	);
	for (const edge of inPathOrder) {
		const from = roomOf(edge.from);
		const to = roomOf(edge.to);
		if (from === to) continue;
		const key = `${from} ${to}`;
		const known = between.get(key);
		if (known) known.imports++;
		else between.set(key, { first: edge, imports: 1 });
	}
	return between;
}

/**
 * The cycles of a directed graph, one through each edge that closes one: for an edge a → b, the
 * shortest way from b back to a. Each cycle once, starting at its first node in sort order.
 */
export function cycles(pairs: Array<[string, string]>): string[][] {
	const next = new Map<string, string[]>();
	for (const [from, to] of pairs) next.set(from, [...(next.get(from) ?? []), to].sort());
	const found = new Map<string, string[]>();
	for (const [from, to] of [...pairs].sort()) {
		const way = shortestPath(next, to, from);
		if (way === undefined) continue;
		const cycle = [from, ...way.slice(0, -1)];
		const start = cycle.indexOf([...cycle].sort()[0]);
		const rotated = [...cycle.slice(start), ...cycle.slice(0, start)];
		found.set(rotated.join(' '), rotated);
	}
	return [...found.values()];
}

/** The nodes from `start` to `goal` along the fewest edges, both included; undefined when none. */
function shortestPath(
	next: Map<string, string[]>,
	start: string,
	goal: string,
): string[] | undefined {
	const cameFrom = new Map<string, string | undefined>([[start, undefined]]);
	const queue = [start];
	for (let at = 0; at < queue.length; at++) {
		const node = queue[at];
		if (node === goal) {
			const way = [node];
			for (let step = cameFrom.get(node); step !== undefined; step = cameFrom.get(step))
				way.unshift(step);
			return way;
		}
		for (const to of next.get(node) ?? [])
			if (!cameFrom.has(to)) {
				cameFrom.set(to, node);
				queue.push(to);
			}
	}
	return undefined;
}

/** The cycles between rooms, each as `a → b → a` followed by the first import of each step. */
export function roomCycles(sources: Sources): string[] {
	const between = roomEdges(importEdges(sources));
	const pairs = [...between.keys()].map((key) => key.split(' ') as [string, string]);
	return cycles(pairs).map((cycle) => {
		const closed = [...cycle, cycle[0]];
		const imports = closed.slice(0, -1).map((room, index) => {
			const { first, imports } = between.get(`${room} ${closed[index + 1]}`)!;
			const more =
				imports > 1 ? ` (and ${imports - 1} more ${imports > 2 ? 'imports' : 'import'})` : '';
			return `  ${first.from} imports ${first.to}${more}`;
		});
		return [closed.join(' → '), ...imports].join('\n');
	});
}

/** The cycles between files, each as `a.ts → b.ts → a.ts`. */
export function fileCycles(sources: Sources): string[] {
	const pairs = importEdges(sources).map(({ from, to }): [string, string] => [from, to]);
	return cycles(pairs).map((cycle) => [...cycle, cycle[0]].join(' → '));
}
