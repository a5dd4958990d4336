import { useBinaryMode } from '../harness/run';
import { defineIpLookupFileCases } from './ipLookupFileCases';

/**
 * IP Database Lookup, Input "CSV File", in n8n's filesystem binary mode: the log is read as a
 * stream from n8n's binary store (twice: its shape, then its rows), and the result file is handed
 * to n8n as a stream, which n8n writes to its store.
 */
beforeAll(async () => await useBinaryMode('filesystem'));

describe('IP Database Lookup on a CSV file (filesystem binary mode)', () => {
	defineIpLookupFileCases();
});
