import { useBinaryMode } from '../harness/run';
import { testRunFileCases } from './testRunFiles';

beforeAll(async () => await useBinaryMode('filesystem'));

testRunFileCases('filesystem');
