{{- define "kfc.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "kfc.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else if contains (include "kfc.name" .) .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name (include "kfc.name" .) | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{/* Labels every object carries. Call with (dict "root" $ "component" "controlplane"). */}}
{{- define "kfc.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/part-of: karmada-failover
{{ include "kfc.selectorLabels" . }}
{{- with .root.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "kfc.selectorLabels" -}}
app.kubernetes.io/name: {{ include "kfc.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "kfc.image" -}}
{{- $img := mergeOverwrite (deepCopy .root.Values.image) (.image | default dict) -}}
{{- $tag := $img.tag | default .root.Chart.AppVersion -}}
{{- if $img.digest -}}
{{ printf "%s@%s" $img.repository $img.digest }}
{{- else -}}
{{ printf "%s:%s" $img.repository $tag }}
{{- end -}}
{{- end }}

{{/* The control plane's identity in the Karmada API server (the RBAC subject). */}}
{{- define "kfc.serviceAccountName" -}}
{{- if .Values.controller.serviceAccount.create }}
{{- default (include "kfc.fullname" .) .Values.controller.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.controller.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "kfc.karmadaSecretName" -}}
{{- if .Values.karmadaKubeconfig.existingSecret }}
{{- .Values.karmadaKubeconfig.existingSecret }}
{{- else }}
{{- printf "%s-karmada-kubeconfig" (include "kfc.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{/* True when the controller reaches Karmada through a kubeconfig rather than in-cluster. */}}
{{- define "kfc.usesKubeconfig" -}}
{{- if or .Values.karmadaKubeconfig.existingSecret .Values.karmadaKubeconfig.kubeconfig }}true{{- end }}
{{- end }}

{{- define "kfc.karmadaChecksum" -}}
{{- if .Values.karmadaKubeconfig.existingSecret }}
{{- printf "%s/%s" .Values.karmadaKubeconfig.existingSecret .Values.karmadaKubeconfig.key | sha256sum }}
{{- else }}
{{- .Values.karmadaKubeconfig.kubeconfig | sha256sum }}
{{- end }}
{{- end }}

{{/* The documents of a multi-document file under files/, as a list of maps. */}}
{{- define "kfc.docs" -}}
{{- $docs := list }}
{{- range (splitList "\n---\n" (.root.Files.Get .path)) }}
{{- $doc := fromYaml . }}
{{- if $doc.kind }}{{ $docs = append $docs $doc }}{{ end }}
{{- end }}
{{- toJson $docs }}
{{- end }}

{{/* A --*-bind-address value from (dict "host" .. "port" ..): an IPv6 host goes in brackets. */}}
{{- define "kfc.bindAddress" -}}
{{- if contains ":" (toString .host) }}
{{- printf "[%s]:%v" .host .port }}
{{- else }}
{{- printf "%s:%v" (toString .host) .port }}
{{- end }}
{{- end }}

{{/*
The CRDs under files/crds/ that the target API server already serves through an aggregated API
server, as JSON {crd name: APIService name}. An APIService <version>.<group> with a service behind
it (Karmada's karmada-aggregated-apiserver serves v1alpha1.cluster.karmada.io) owns that
group/version: a CRD beside it installs without complaint, and deleting that CRD later (an
uninstall with crds.keep=false, or by hand) deletes every object of the group the aggregated
server holds, every Cluster. Local APIServices (no service) are those the API server creates for
CRDs and built-in groups: they never count, so an upgrade keeps the CRDs this chart installed.
`lookup` finds nothing without a server (helm template, --dry-run=client): then every CRD is
installed; `helm template --dry-run=server` asks the server.
*/}}
{{- define "kfc.crdsServedByAggregation" -}}
{{- $served := dict }}
{{- range $path, $_ := .Files.Glob "files/crds/*.yaml" }}
{{- $crd := fromYaml ($.Files.Get $path) }}
{{- range (dig "spec" "versions" list $crd) }}
{{- $name := printf "%s.%s" .name $crd.spec.group }}
{{- $apiService := lookup "apiregistration.k8s.io/v1" "APIService" "" $name }}
{{- if and (not (hasKey $served $crd.metadata.name)) (dig "spec" "service" nil $apiService) }}
{{- $_ := set $served $crd.metadata.name $name }}
{{- end }}
{{- end }}
{{- end }}
{{- toJson $served }}
{{- end }}
