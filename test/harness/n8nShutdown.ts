import { Container } from '@n8n/di';
import { SSHClientsManager } from 'n8n-core/dist/execution-engine/ssh-clients-manager';

/**
 * Runs after each test file (jest's setupFilesAfterEnv): what n8n does for the n8n-core services
 * the harness starts when n8n itself shuts down. Every node execution makes n8n-core build its
 * SSH clients manager, whose constructor starts a one-minute cleanup interval that only its
 * onShutdown clears; left running, it would keep jest's process alive after the last test.
 * The sandbox and every other handle a test opens are closed by the test file itself.
 */
afterAll(() => {
	Container.get(SSHClientsManager).onShutdown();
});
