// Build step (`npm run build`): writes the empty database the package ships (src/db/shipped-database.ts).
import { writeEmptyDatabase } from '../db/shipped-database.ts';

const file = process.argv[2];
if (!file) {
  console.error('usage: node dist/cli/build-empty-database.js <file.tar.gz>');
  process.exit(2);
}
await writeEmptyDatabase(file);
