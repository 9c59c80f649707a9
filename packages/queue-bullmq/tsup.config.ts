import { defineStratboxBuild } from '../../tsup.base';

export default defineStratboxBuild({ index: 'src/index.ts' });
