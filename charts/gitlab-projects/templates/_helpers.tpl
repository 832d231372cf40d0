{{/* Names and labels. */}}
{{- define "glp.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "glp.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else if contains (include "glp.name" .) .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "glp.name" .) | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "glp.selectorLabels" -}}
app.kubernetes.io/name: {{ include "glp.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "glp.labels" -}}
{{ include "glp.selectorLabels" . }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: gitlab-projects
{{- end -}}

{{/* Labels of one component: (dict "root" $ "component" "identity"). */}}
{{- define "glp.componentLabels" -}}
{{ include "glp.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "glp.componentSelector" -}}
{{ include "glp.selectorLabels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "glp.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{- define "glp.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}{{ default (include "glp.fullname" .) .Values.serviceAccount.name }}{{- else -}}{{ default "default" .Values.serviceAccount.name }}{{- end -}}
{{- end -}}

{{- define "glp.secretName" -}}
{{- default (printf "%s-secrets" (include "glp.fullname" .)) .Values.secrets.existingSecret -}}
{{- end -}}

{{/* The stateless services as a dict name → entry. */}}
{{- define "glp.servicesByName" -}}
{{- $out := dict -}}
{{- range .Values.services }}{{- $_ := set $out .name . -}}{{- end -}}
{{- toJson $out -}}
{{- end -}}

{{/* "host:port" of a stateless gRPC service: (dict "root" $ "name" "identity"). */}}
{{- define "glp.grpcAddr" -}}
{{- $svcs := include "glp.servicesByName" .root | fromJson -}}
{{- $svc := required (printf "services: %s is missing from the list" .name) (get $svcs .name) -}}
{{- printf "%s-%s:%v" (include "glp.fullname" .root) .name (int $svc.ports.grpc) -}}
{{- end -}}

{{/* repo-admin names of one storage: (dict "root" $ "storage" "default"). */}}
{{- define "glp.repoAdminName" -}}
{{- printf "%s-repo-admin-%s" (include "glp.fullname" .root) .storage | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "glp.repoAdminSchema" -}}
{{- if eq .storage "default" -}}repo_admin{{- else -}}{{ printf "repo_admin_%s" (.storage | replace "-" "_") }}{{- end -}}
{{- end -}}

{{/* The base URL of the API; "" when neither externalUrl nor the Ingress gives one. */}}
{{- define "glp.externalUrl" -}}
{{- if .Values.externalUrl -}}{{ .Values.externalUrl }}
{{- else if .Values.ingress.enabled -}}{{ printf "%s://%s" (ternary "https" "http" .Values.ingress.tls.enabled) .Values.ingress.host }}
{{- end -}}
{{- end -}}

{{/*
Who calls whom (gRPC), from each service's *_GRPC_ADDR in apps/<name>/src/config.ts, and which infrastructure each
uses. The NetworkPolicies and the Deployments' env are derived from it.
*/}}
{{- define "glp.topology" -}}
calls:
  gateway: [identity, projects, access-requests, repo-admin, hooks, push-rules]
  identity: []
  projects: [identity]
  access-requests: [identity, projects]
  repo-admin: [identity, projects, push-rules]
  hooks: [identity, projects, webhook-dispatcher]
  webhook-dispatcher: [identity, projects, repo-admin, hooks]
  push-rules: [identity, projects]
  migrations: []
infra:
  gateway: [redis]
  identity: [postgres, kafka, redis]
  projects: [postgres, kafka, redis]
  access-requests: [postgres, kafka]
  repo-admin: [postgres, kafka]
  hooks: [postgres, kafka]
  webhook-dispatcher: [postgres, kafka]
  push-rules: [postgres, kafka]
  migrations: [postgres]
secrets:
  gateway: [ACTOR_SECRET, REDIS_URL]
  identity: [ACTOR_SECRET, DATABASE_URL, REDIS_URL, GITLAB_ROOT_TOKEN]
  projects: [ACTOR_SECRET, DATABASE_URL, REDIS_URL, SECRETS_KEY]
  access-requests: [ACTOR_SECRET, DATABASE_URL]
  repo-admin: [ACTOR_SECRET, DATABASE_URL]
  hooks: [ACTOR_SECRET, DATABASE_URL, HOOKS_SECRETS_KEY]
  webhook-dispatcher: [ACTOR_SECRET, DATABASE_URL]
  push-rules: [ACTOR_SECRET, DATABASE_URL]
{{- end -}}

{{/* Secret env of a component: (dict "root" $ "component" "identity" "secretName" "..."). */}}
{{- define "glp.secretEnv" -}}
{{- $topo := include "glp.topology" .root | fromYaml -}}
{{- range (get $topo.secrets .component) }}
- name: {{ . }}
  valueFrom:
    secretKeyRef:
      name: {{ $.secretName }}
      key: {{ . }}
{{- end }}
{{- if eq .component "identity" }}
- name: GITLAB_ROOT_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ .secretName }}
      key: GITLAB_ROOT_PASSWORD
      optional: true
{{- end }}
{{- end -}}

{{/* env overrides (NAME: value map) then extraEnv (raw list): (dict "env" map "extraEnv" list). */}}
{{- define "glp.overrideEnv" -}}
{{- range $k, $v := .env }}
- name: {{ $k }}
  value: {{ $v | toString | quote }}
{{- end }}
{{- with .extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "glp.podSecurity" -}}
automountServiceAccountToken: false
serviceAccountName: {{ include "glp.serviceAccountName" . }}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{- define "glp.tmpVolume" -}}
- name: tmp
  emptyDir:
    sizeLimit: {{ .Values.tmpSizeLimit }}
{{- end -}}

{{/*
In-release infrastructure (the vendored Bitnami subcharts). glp.subchartFullname: the name Bitnami's
common.names.fullname gives a subchart's objects: (dict "root" $ "chart" "postgresql").
*/}}
{{- define "glp.subchartFullname" -}}
{{- $v := get .root.Values .chart -}}
{{- if $v.fullnameOverride -}}
{{- $v.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .chart $v.nameOverride -}}
{{- $release := regexReplaceAll "(-?[^a-z\\d\\-])+-?" (lower .root.Release.Name) "-" -}}
{{- if contains $name $release -}}{{ $release | trunc 63 | trimSuffix "-" }}{{- else -}}{{ printf "%s-%s" $release $name | trunc 63 | trimSuffix "-" }}{{- end -}}
{{- end -}}
{{- end -}}

{{/* Pod labels of a subchart's pods: (dict "root" $ "chart" "postgresql"). */}}
{{- define "glp.subchartSelector" -}}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/name: {{ default .chart (get .root.Values .chart).nameOverride }}
{{- end -}}

{{/* "host:port" of an in-release dependency's client Service: (dict "root" $ "chart" "postgresql"|"redis"|"kafka"). */}}
{{- define "glp.bundledAddr" -}}
{{- $name := include "glp.subchartFullname" . -}}
{{- if eq .chart "postgresql" }}{{ $name }}:5432{{ else if eq .chart "redis" }}{{ $name }}-master:6379{{ else }}{{ $name }}:9092{{ end -}}
{{- end -}}

{{/* A URL's userinfo part, percent-encoded. */}}
{{- define "glp.urlUserinfo" -}}
{{- . | urlquery | replace "+" "%20" -}}
{{- end -}}

{{- define "glp.databaseUrl" -}}
{{- if .Values.secrets.databaseUrl -}}{{ .Values.secrets.databaseUrl }}
{{- else if .Values.postgresql.enabled -}}
{{- $a := .Values.postgresql.auth -}}
{{- printf "postgres://%s:%s@%s/%s" (include "glp.urlUserinfo" $a.username) (include "glp.urlUserinfo" $a.password) (include "glp.bundledAddr" (dict "root" . "chart" "postgresql")) $a.database -}}
{{- end -}}
{{- end -}}

{{- define "glp.redisUrl" -}}
{{- if .Values.secrets.redisUrl -}}{{ .Values.secrets.redisUrl }}
{{- else if .Values.redis.enabled -}}
{{- $host := include "glp.bundledAddr" (dict "root" . "chart" "redis") -}}
{{- if .Values.redis.auth.enabled -}}{{ printf "redis://:%s@%s" (include "glp.urlUserinfo" .Values.redis.auth.password) $host }}{{- else -}}{{ printf "redis://%s" $host }}{{- end -}}
{{- end -}}
{{- end -}}

{{/*
When the migrations hook runs. With the in-release PostgreSQL it cannot be pre-install (the database does not exist
before the release's objects do): post-install, after a wait for the database (glp.waitForPostgres).
*/}}
{{- define "glp.migrationHooks" -}}
{{- if .Values.postgresql.enabled }}post-install,pre-upgrade{{ else }}pre-install,pre-upgrade{{ end -}}
{{- end -}}

{{/* When the migrations Secret (a hook copy of what both Jobs need) is created: before each of them. */}}
{{- define "glp.migrationSecretHooks" -}}
{{ include "glp.migrationHooks" . }},post-upgrade{{ if not .Values.postgresql.enabled }},post-install{{ end }}
{{- end -}}

{{/*
An init container of the migrations Job that waits until the in-release PostgreSQL answers a query (a fresh
StatefulSet needs its volume, image and initdb first); the Job's activeDeadlineSeconds bounds the wait.
(dict "root" $ "secretName" s)
*/}}
{{- define "glp.waitForPostgres" -}}
{{- $r := .root -}}
- name: wait-for-postgresql
  image: {{ include "glp.image" $r }}
  imagePullPolicy: {{ $r.Values.image.pullPolicy }}
  workingDir: /app
  command:
    - node
    - -e
    - |
      const { Client } = require('pg');
      (async function attempt() {
        const c = new Client({ connectionString: process.env.DATABASE_URL, connectionTimeoutMillis: 5000 });
        c.on('error', () => undefined);
        try {
          await c.connect();
          await c.query('SELECT 1');
          await c.end();
          console.log('postgresql is ready');
        } catch (err) {
          c.end().catch(() => undefined);
          console.log(`waiting for postgresql: ${err.message}`);
          setTimeout(attempt, 2000);
        }
      })();
  securityContext:
    {{- toYaml $r.Values.securityContext | nindent 4 }}
  env:
    - name: DATABASE_URL
      valueFrom:
        secretKeyRef:
          name: {{ .secretName }}
          key: DATABASE_URL
  resources:
    {{- toYaml $r.Values.migrations.resources | nindent 4 }}
  volumeMounts:
    - {name: tmp, mountPath: /tmp}
{{- end -}}

{{/* KAFKA_BROKERS: kafka.brokers, else the in-release Kafka's client service. */}}
{{- define "glp.kafkaBrokers" -}}
{{- if .Values.kafka.brokers -}}{{ join "," .Values.kafka.brokers }}
{{- else if .Values.kafka.enabled -}}{{ include "glp.bundledAddr" (dict "root" . "chart" "kafka") }}
{{- end -}}
{{- end -}}

{{/* Fails the render when secrets are neither given nor in an existing Secret. */}}
{{- define "glp.checkSecrets" -}}
{{- if not .Values.secrets.existingSecret -}}
{{- $s := .Values.secrets -}}
{{- if and .Values.postgresql.enabled (not $s.databaseUrl) -}}
{{- $_ := required "postgresql.auth.password is required with postgresql.enabled (or set secrets.databaseUrl)" .Values.postgresql.auth.password -}}
{{- else -}}
{{- $_ := required "secrets.databaseUrl is required (or set secrets.existingSecret, or postgresql.enabled)" $s.databaseUrl -}}
{{- end -}}
{{- if and .Values.redis.enabled (not $s.redisUrl) -}}
{{- if .Values.redis.auth.enabled }}{{ $_ := required "redis.auth.password is required with redis.enabled (or set secrets.redisUrl)" .Values.redis.auth.password }}{{ end -}}
{{- else -}}
{{- $_ := required "secrets.redisUrl is required (or set secrets.existingSecret, or redis.enabled)" $s.redisUrl -}}
{{- end -}}
{{- $_ := required "secrets.rootToken is required (or set secrets.existingSecret)" $s.rootToken -}}
{{- $_ := required "secrets.actorSecret is required (or set secrets.existingSecret)" $s.actorSecret -}}
{{- $_ := required "secrets.hooksSecretsKey is required (or set secrets.existingSecret)" $s.hooksSecretsKey -}}
{{- $_ := required "secrets.projectsSecretsKey is required (or set secrets.existingSecret)" $s.projectsSecretsKey -}}
{{- if lt (len $s.rootToken) 20 }}{{ fail "secrets.rootToken must be at least 20 characters" }}{{ end -}}
{{- if lt (len $s.actorSecret) 16 }}{{ fail "secrets.actorSecret must be at least 16 characters" }}{{ end -}}
{{- end -}}
{{- if not (include "glp.kafkaBrokers" .) }}{{ fail "kafka.brokers is required (e.g. [kafka:9092]), or kafka.enabled" }}{{ end -}}
{{- $names := list -}}
{{- range .Values.repoAdmin.storages }}{{ $names = append $names .name }}{{ end -}}
{{- if not (has "default" $names) }}{{ fail "repoAdmin.storages must contain a storage named default" }}{{ end -}}
{{- if ne (len $names) (len (uniq $names)) }}{{ fail "repoAdmin.storages: names must be unique" }}{{ end -}}
{{- end -}}

{{/* The Secret's keys (required values, no defaults). */}}
{{- define "glp.secretData" -}}
DATABASE_URL: {{ include "glp.databaseUrl" . | quote }}
REDIS_URL: {{ include "glp.redisUrl" . | quote }}
GITLAB_ROOT_TOKEN: {{ .Values.secrets.rootToken | quote }}
ACTOR_SECRET: {{ .Values.secrets.actorSecret | quote }}
HOOKS_SECRETS_KEY: {{ .Values.secrets.hooksSecretsKey | quote }}
SECRETS_KEY: {{ .Values.secrets.projectsSecretsKey | quote }}
{{- with .Values.secrets.rootPassword }}
GITLAB_ROOT_PASSWORD: {{ . | quote }}
{{- end }}
{{- end -}}

{{/* One migration step of a migrations Job: (dict "root" $ "step" (dict name service schema storage) "secretName" s "role" migrate|migrate-post). */}}
{{- define "glp.migrationContainer" -}}
{{- $r := .root -}}
- name: {{ .step.name }}
  image: {{ include "glp.image" $r }}
  imagePullPolicy: {{ $r.Values.image.pullPolicy }}
  securityContext:
    {{- toYaml $r.Values.securityContext | nindent 4 }}
  env:
    - {name: SERVICE, value: {{ .step.service }}}
    - {name: ROLE, value: {{ .role }}}
    - {name: NODE_ENV, value: production}
    - {name: LOG_LEVEL, value: {{ $r.Values.logLevel | quote }}}
    - {name: KAFKA_TOPIC_PREFIX, value: {{ $r.Values.kafka.topicPrefix | quote }}}
    {{- with .step.schema }}
    - {name: DB_SCHEMA, value: {{ . | quote }}}
    - {name: REPOSITORY_STORAGE, value: {{ $.step.storage | quote }}}
    - {name: DATA_DIR, value: /tmp}
    {{- end }}
    {{- /* the service's env overrides (e.g. its DB_SCHEMA), as in its Deployment */}}
    {{- with include "glp.overrideEnv" (dict "env" .step.env "extraEnv" list) | trim }}{{ . | nindent 4 }}{{- end }}
    {{- range (list "DATABASE_URL" "ACTOR_SECRET") }}
    - name: {{ . }}
      valueFrom:
        secretKeyRef:
          name: {{ $.secretName }}
          key: {{ . }}
    {{- end }}
  resources:
    {{- toYaml $r.Values.migrations.resources | nindent 4 }}
  volumeMounts:
    - {name: tmp, mountPath: /tmp}
{{- end -}}
