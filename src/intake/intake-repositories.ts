// Intake's own repositories (its tables), built once by the container beside the core's
// (repositories/repositories.ts, a layer below intake) and handed to intake's classes, which name
// the ones they use (Pick<IntakeRepositories, ...>).
import { IntakeRepository } from './intake-repository.ts';
import { WaitingFilesRepository } from './waiting-files-repository.ts';

export interface IntakeRepositories {
  intake: IntakeRepository;
  waitingFiles: WaitingFilesRepository;
}

export function createIntakeRepositories(): IntakeRepositories {
  return { intake: new IntakeRepository(), waitingFiles: new WaitingFilesRepository() };
}
