// Build step (`npm run build`, from the sources so that it resolves packages wherever BUILD_OUT is):
// writes the empty database the package ships (src/db/shipped-database.ts).
import { writeEmptyDatabase } from '../db/shipped-database.ts';

const file = process.argv[2];
if (!file) {
  console.error('usage: node --import tsx src/cli/build-empty-database.ts <file.tar.gz>');
  process.exit(2);
}
await writeEmptyDatabase(file);
