# asyncssh (Debian's python3-asyncssh) as an SFTP client with a key: upload under a temporary
# name, then posix_rename to the final name (asyncssh refuses that call unless the server
# advertises posix-rename@openssh.com). Run by test/sftp/ssh2-adapter.test.ts and
# test/sftp/sftp-strict-clients.test.ts with /usr/bin/python3.
# usage: python3 asyncssh-job.py PORT USER KEY_FILE LOCAL TEMP_REMOTE FINAL_REMOTE
# logs asyncssh's debug lines (the server's EXT_INFO and SFTP extensions) on stderr
import asyncio, logging, sys
import asyncssh

port, user, key_file, local, temp_remote, final_remote = sys.argv[1:7]
logging.basicConfig(stream=sys.stderr, level=logging.DEBUG)
asyncssh.set_debug_level(2)


async def main():
    async with asyncssh.connect('127.0.0.1', int(port), username=user, client_keys=[key_file],
                                known_hosts=None, agent_path=None, preferred_auth='publickey') as conn:
        async with conn.start_sftp_client() as sftp:
            await sftp.put(local, temp_remote)
            await sftp.posix_rename(temp_remote, final_remote)
            print('OK renamed', temp_remote, 'to', final_remote)

asyncio.run(main())
