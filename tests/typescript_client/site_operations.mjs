// The official TypeScript client (@gitbook/api) calls the three site operations the sandbox
// serves: addSpaceToSite, addSectionToSite, inviteToSite. Run by tests/test_typescript_client.py
// against a validating proxy in front of the sandbox; prints each answer as one JSON line.
//
// node site_operations.mjs <endpoint> <token> <organizationId> <siteId> <spaceId> <userId>
import { GitBookAPI } from '@gitbook/api';

const [endpoint, authToken, org, site, space, user] = process.argv.slice(2);
const api = new GitBookAPI({ endpoint, authToken });

async function call(name, run) {
  try {
    const answer = await run();
    return { name, status: answer.status, data: answer.data ?? null };
  } catch (error) {
    // GitBookAPIError: a refused call (its status and the API's message)
    return { name, status: error.code ?? error.status ?? null, error: String(error.message) };
  }
}

const results = [
  await call('addSpaceToSite', () =>
    api.orgs.addSpaceToSite(org, site, { spaceId: space, title: 'Linked by TypeScript' })),
  await call('addSpaceToSite refused', () =>
    api.orgs.addSpaceToSite(org, site, { spaceId: 'ghost' })),
  await call('addSectionToSite', () =>
    api.orgs.addSectionToSite(org, site, { spaceId: null, title: 'TypeScript section' })),
  await call('inviteToSite', () =>
    api.orgs.inviteToSite(org, site, { role: 'comment', users: [user] })),
];
for (const result of results) {
  console.log(JSON.stringify(result));
}
