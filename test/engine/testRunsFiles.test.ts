import { testRunFileCases } from './testRunFiles';

testRunFileCases('memory');
