/** Tests run the built package (dist/) through n8n-core against the sandbox on 127.0.0.1. */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json', diagnostics: false }] },
	testTimeout: 60_000,
	maxWorkers: 2,
	// n8n-core's own timers are stopped as n8n stops them at shutdown; no forceExit, so a handle
	// a test leaves open keeps jest from exiting and shows.
	setupFilesAfterEnv: ['<rootDir>/test/harness/n8nShutdown.ts'],
	// The run's temporary folders in one folder of its own, checked empty at the end.
	globalSetup: '<rootDir>/test/harness/tempFoldersSetup.ts',
	globalTeardown: '<rootDir>/test/harness/tempFoldersTeardown.ts',
};
