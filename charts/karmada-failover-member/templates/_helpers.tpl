{{/* Chart name, truncated to the 63 characters a label value allows. */}}
{{- define "kfm.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Release-qualified name used as the prefix of every object. */}}
{{- define "kfm.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else if contains (include "kfm.name" .) .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name (include "kfm.name" .) | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{/* Labels every object carries. Call with (dict "root" $ "component" "agent"). */}}
{{- define "kfm.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/part-of: karmada-failover
{{ include "kfm.selectorLabels" . }}
{{- with .root.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Selector labels: stable across upgrades (never the version). */}}
{{- define "kfm.selectorLabels" -}}
app.kubernetes.io/name: {{ include "kfm.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* Image reference of a component: its own block overrides the chart-wide one. */}}
{{- define "kfm.image" -}}
{{- $img := mergeOverwrite (deepCopy .root.Values.image) (.image | default dict) -}}
{{- $tag := $img.tag | default .root.Chart.AppVersion -}}
{{- if $img.digest -}}
{{ printf "%s@%s" $img.repository $img.digest }}
{{- else -}}
{{ printf "%s:%s" $img.repository $tag }}
{{- end -}}
{{- end }}

{{- define "kfm.agent.fullname" -}}
{{- printf "%s-agent" (include "kfm.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- define "kfm.probe.fullname" -}}
{{- printf "%s-probe" (include "kfm.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "kfm.agent.serviceAccountName" -}}
{{- if .Values.agent.serviceAccount.create }}
{{- default (include "kfm.agent.fullname" .) .Values.agent.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.agent.serviceAccount.name }}
{{- end }}
{{- end }}
{{- define "kfm.probe.serviceAccountName" -}}
{{- if .Values.probe.serviceAccount.create }}
{{- default (include "kfm.probe.fullname" .) .Values.probe.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.probe.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The Secret holding the Karmada kubeconfig. */}}
{{- define "kfm.karmadaSecretName" -}}
{{- if .Values.karmadaKubeconfig.existingSecret }}
{{- .Values.karmadaKubeconfig.existingSecret }}
{{- else }}
{{- printf "%s-karmada-kubeconfig" (include "kfm.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{/* Rolls the pods when the kubeconfig changes (its content when the chart owns the Secret). */}}
{{- define "kfm.karmadaChecksum" -}}
{{- if .Values.karmadaKubeconfig.existingSecret }}
{{- printf "%s/%s" .Values.karmadaKubeconfig.existingSecret .Values.karmadaKubeconfig.key | sha256sum }}
{{- else }}
{{- .Values.karmadaKubeconfig.kubeconfig | sha256sum }}
{{- end }}
{{- end }}

{{/* The cluster name, required. */}}
{{- define "kfm.clusterName" -}}
{{- required "clusterName is required: the name of this member's Cluster in Karmada" .Values.clusterName }}
{{- end }}

{{/* A --*-bind-address value from (dict "host" .. "port" ..): an IPv6 host goes in brackets. */}}
{{- define "kfm.bindAddress" -}}
{{- if contains ":" (toString .host) }}
{{- printf "[%s]:%v" .host .port }}
{{- else }}
{{- printf "%s:%v" (toString .host) .port }}
{{- end }}
{{- end }}
