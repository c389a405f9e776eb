# kube-rdma image: the CLI, used by `kube-rdma fleet verify` collector pods (`kube-rdma collect --root /host`).
#   docker build -t kube-rdma:0.1.0 . && docker push <registry>/kube-rdma:0.1.0
# Pin the base image by digest for a reproducible build (the digest `docker buildx imagetools inspect node:24-slim`
# prints): docker build --build-arg NODE_IMAGE=node:24-slim@sha256:DIGEST .
# Then run the pushed image by its digest too: fleet verify --image <registry>/kube-rdma@sha256:DIGEST and
# device-plugin --print-manifests --image <registry>/kube-rdma@sha256:DIGEST.
ARG NODE_IMAGE=node:24-slim
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY . .
# The device plugin loads its api.proto at run time: ship it at /app/proto (one of the places it looks).
RUN npm run build && mkdir -p proto && cp -r src/device-plugin/proto/. proto/

FROM ${NODE_IMAGE}
WORKDIR /app
ENV NODE_ENV=production
# The kernel-interface tools collectors run from the image (a collector mounts only the host's /usr/bin; these live in
# /usr/sbin): ethtool for the port and PHY counters, iproute2 for `ip` and `dcb`. nvidia-smi and ofed_info come from
# the host, matching its driver stack.
RUN apt-get update && apt-get install -y --no-install-recommends ethtool iproute2 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
COPY --from=build /app/proto ./proto
COPY --from=build /app/deploy ./deploy
RUN ln -s /app/bin/kube-rdma.js /usr/local/bin/kube-rdma && chmod +x /app/bin/kube-rdma.js
USER node
ENTRYPOINT ["kube-rdma"]
CMD ["--help"]
