// Intake's own repositories (its tables), built once by the container beside the core's
// (repositories/repositories.ts, a layer below intake) and handed to intake's classes, which name
// the ones they use (Pick<IntakeRepositories, ...>).
import { DocumentLinkRepository } from './document-link-repository.ts';
import { ImportListRepository } from './import-list-repository.ts';
import { IntakeRepository } from './intake-repository.ts';
import { IntakeTestDataRepository } from './test-data-repository.ts';
import { WaitingFilesRepository } from './waiting-files-repository.ts';
import type { DocumentStore } from '../storage/document-store.ts';

export interface IntakeRepositories {
  /** intake's side of the documents made from its files (and the SharedBytes port of DocumentService) */
  documentLinks: DocumentLinkRepository;
  intake: IntakeRepository;
  importLists: ImportListRepository;
  /** intake's share of the test-data purge */
  testData: IntakeTestDataRepository;
  waitingFiles: WaitingFilesRepository;
}

export function createIntakeRepositories(store: DocumentStore): IntakeRepositories {
  return {
    documentLinks: new DocumentLinkRepository(),
    intake: new IntakeRepository(store),
    importLists: new ImportListRepository(),
    testData: new IntakeTestDataRepository(),
    waitingFiles: new WaitingFilesRepository(),
  };
}
