import type { Pool, PoolClient } from '@glp/db';
import type { UploaderKind } from '../domain/upload-rules';

type Queryable = Pool | PoolClient;

export interface UploadRow {
  id: number;
  project_id: number;
  uploader: UploaderKind;
  secret: string;
  filename: string;
  size: number;
  content_type: string;
  uploaded_by: number | null;
  created_at: Date;
}

const COLUMNS = 'id, project_id, uploader, secret, filename, size, content_type, uploaded_by, created_at';

export interface NewUploadRow {
  projectId: number;
  uploader: UploaderKind;
  secret: string;
  fileName: string;
  size: number;
  contentType: string;
  uploadedBy: number;
}

export async function insertUpload(db: Queryable, u: NewUploadRow): Promise<UploadRow> {
  const { rows } = await db.query<UploadRow>(
    `INSERT INTO uploads (project_id, uploader, secret, filename, size, content_type, uploaded_by)
     VALUES ($1, $2, $3, $4, $5, $6, NULLIF($7, 0)) RETURNING ${COLUMNS}`,
    [u.projectId, u.uploader, u.secret, u.fileName, u.size, u.contentType, u.uploadedBy],
  );
  return rows[0]!;
}

/** A project's attachment by id (uploads of other projects and avatars are not found). */
export async function findUploadById(db: Queryable, projectId: number, id: number): Promise<UploadRow | undefined> {
  const { rows } = await db.query<UploadRow>(
    `SELECT ${COLUMNS} FROM uploads WHERE project_id = $1 AND id = $2 AND uploader = 'FileUploader'`, [projectId, id],
  );
  return rows[0];
}

/** A project's upload of this kind by its secret and stored file name. */
export async function findUploadByName(db: Queryable, kind: UploaderKind, projectId: number, secret: string, fileName: string): Promise<UploadRow | undefined> {
  const { rows } = await db.query<UploadRow>(
    `SELECT ${COLUMNS} FROM uploads WHERE project_id = $1 AND uploader = $2 AND secret = $3 AND filename = $4`,
    [projectId, kind, secret, fileName],
  );
  return rows[0];
}

/** A page of a project's attachments, newest first (GitLab's `order_by_created_at_desc`, id breaking ties), with the count. */
export async function listUploadsPage(db: Queryable, projectId: number, limit: number, offset: number): Promise<{ rows: UploadRow[]; total: number }> {
  const [page, count] = await Promise.all([
    db.query<UploadRow>(
      `SELECT ${COLUMNS} FROM uploads WHERE project_id = $1 AND uploader = 'FileUploader'
       ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
      [projectId, limit, offset],
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM uploads WHERE project_id = $1 AND uploader = 'FileUploader'`, [projectId]),
  ]);
  return { rows: page.rows, total: count.rows[0]!.n };
}

/** Deletes a row; false when it was already gone. */
export async function deleteUploadRow(db: Queryable, id: number): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM uploads WHERE id = $1', [id]);
  return (rowCount ?? 0) > 0;
}

/** A project's stored avatars. */
export async function avatarsOf(db: Queryable, projectId: number): Promise<UploadRow[]> {
  const { rows } = await db.query<UploadRow>(
    `SELECT ${COLUMNS} FROM uploads WHERE project_id = $1 AND uploader = 'AvatarUploader' ORDER BY id`, [projectId],
  );
  return rows;
}

/** Every row of a project (its removal). */
export async function deleteProjectUploads(db: Queryable, projectId: number): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM uploads WHERE project_id = $1', [projectId]);
  return rowCount ?? 0;
}

/** The bytes a project's uploads take (GitLab's `uploads_size` statistic counts attachments and avatars). */
export async function uploadsSize(db: Queryable, projectId: number): Promise<number> {
  const { rows } = await db.query<{ n: string }>('SELECT COALESCE(sum(size), 0)::text AS n FROM uploads WHERE project_id = $1', [projectId]);
  return Number(rows[0]!.n);
}
