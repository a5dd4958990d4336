import { defineIpLookupFileCases } from './ipLookupFileCases';

/** IP Database Lookup, Input "CSV File", in n8n's default memory binary mode (the files in the items). */
describe('IP Database Lookup on a CSV file (memory binary mode)', () => {
	defineIpLookupFileCases();
});
