#!/usr/bin/env node
// n8n's community-package scan, run here the two ways n8n runs it before it verifies a package
// (@n8n/scan-community-package, scanner.mjs: analyzePackageByName): its ESLint configuration
// (both n8n lint plugins, `allowInlineConfig: false`, so an inline eslint-disable hides nothing)
// over the source (package.json, nodes/**, credentials/**), then over the `npm pack` tarball
// (**/*.js and the packed package.json). n8n fails a package on errors; this check also fails on
// warnings, which n8n shows to its reviewers.
//
// Usage: node scripts/scan.mjs [packageDir]   (default: this package; dist/ must be built)
// Plain ESM, not compiled: the scanner is an ES module that a CommonJS build could not import.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { ESLint } from 'eslint';
import glob from 'fast-glob';
import {
	analyzePackage,
	buildScanConfig,
	SOURCE_FILE_PATTERNS,
} from '@n8n/scan-community-package/scanner/scanner.mjs';

// eslint-plugin-n8n-nodes-base treats NODE_ENV=test as its own test run (every file then counts
// as "Test.node.ts", a trigger and a credential), which jest sets: n8n's scan runs without it.
// The plugin reads it when buildScanConfig first imports it, below.
delete process.env.NODE_ENV;

// The scanner makes a temporary folder when it is imported (for the registry downloads this
// check does not do); tmp removes it at exit only when told to.
createRequire(import.meta.resolve('@n8n/scan-community-package/scanner/scanner.mjs'))(
	'tmp',
).setGracefulCleanup();

/** The tarball leg's patterns, as in analyzePackageByName. */
const TARBALL_FILE_PATTERNS = ['**/*.js', 'package.json'];

const packageDir = path.resolve(
	process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'),
);

/** n8n's verdict: analyzePackage as the scanner calls it. */
async function verdict(label, dir, patterns) {
	const result = await analyzePackage(dir, patterns);
	if (result.passed) return true;
	console.error(`✖ ${label}: ${result.message}\n${result.details ?? ''}`);
	return false;
}

/** Warnings under the same configuration and options (analyzePackage reports errors only). */
async function warnings(label, dir, patterns) {
	const eslint = new ESLint({
		cwd: dir,
		allowInlineConfig: false,
		overrideConfigFile: true,
		overrideConfig: await buildScanConfig(),
	});
	const files = glob.sync(patterns, {
		cwd: dir,
		absolute: true,
		ignore: ['node_modules/**', '**/package-lock.json'],
	});
	const results = await eslint.lintFiles(files);
	const count = results.reduce((sum, result) => sum + result.warningCount, 0);
	if (count === 0) return { files: files.length, clean: true };
	const formatter = await eslint.loadFormatter('stylish');
	console.error(`✖ ${label}: ${count} warning(s)\n${await formatter.format(results)}`);
	return { files: files.length, clean: false };
}

async function scan(label, dir, patterns) {
	const passed = await verdict(label, dir, patterns);
	const { files, clean } = await warnings(label, dir, patterns);
	if (passed && clean) console.log(`✔ ${label}: ${files} files, no errors, no warnings`);
	return passed && clean;
}

function run(command, args, cwd) {
	const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
	if (result.status !== 0) {
		throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr || result.error}`);
	}
	return result.stdout;
}

/**
 * Packs the package as `npm publish` would (no lifecycle scripts, like n8n's `npm pack` of the
 * published version) and unpacks it. A tarball without the built nodes would lint clean while
 * proving nothing, so every file the package.json `n8n` section names must be in it.
 */
function packAndExtract(workDir) {
	const [packed] = JSON.parse(
		run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', workDir], packageDir),
	);
	const extracted = path.join(workDir, 'package');
	fs.mkdirSync(extracted);
	run(
		'tar',
		['-xzf', path.join(workDir, packed.filename), '-C', extracted, '--strip-components=1'],
		workDir,
	);
	const { n8n } = JSON.parse(fs.readFileSync(path.join(extracted, 'package.json'), 'utf8'));
	const registered = [...(n8n?.nodes ?? []), ...(n8n?.credentials ?? [])];
	const missing = registered.filter((file) => !fs.existsSync(path.join(extracted, file)));
	if (registered.length === 0 || missing.length > 0) {
		throw new Error(
			`the tarball lacks the registered nodes/credentials (run npm run build first): ${missing.join(', ') || 'none registered'}`,
		);
	}
	return extracted;
}

const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-abstractapi-scan-'));
let passed = false;
try {
	const sourcePassed = await scan('source', packageDir, SOURCE_FILE_PATTERNS);
	const tarballPassed = await scan(
		'npm pack tarball',
		packAndExtract(workDir),
		TARBALL_FILE_PATTERNS,
	);
	passed = sourcePassed && tarballPassed;
} catch (error) {
	console.error(`✖ scan could not run: ${error.message}`);
} finally {
	fs.rmSync(workDir, { recursive: true, force: true });
}
console.log(passed ? "n8n's community-package scan passed" : "n8n's community-package scan FAILED");
process.exitCode = passed ? 0 : 1;
