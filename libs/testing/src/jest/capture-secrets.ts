import { captureFetchSecrets } from '../secret-capture';

/** Jest setupFiles for the e2e project: registers every token and password the test file sends or receives over fetch. */
captureFetchSecrets();
