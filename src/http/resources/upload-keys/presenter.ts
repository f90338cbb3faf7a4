// The upload key resource as the API shows it: domain records to the HAL bodies its schema describes.
import type { SshKeyView } from '../../../services/ssh-key-service.ts';
import type { UploadKeyView } from '../../../domain/upload-keys.ts';

export const presentSsh = (k: SshKeyView) => ({ resource: 'ssh-key' as const, ...k, uploadKey: k.uploadKey ?? '' });

export const present = <K extends UploadKeyView>(k: K) => ({ resource: 'upload-key' as const, ...k });
