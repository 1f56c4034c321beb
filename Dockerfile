# The energy-rental-kit simulator, and the kit's other commands.
#   docker build -t energy-rental-kit .
#   docker run -p 127.0.0.1:8787:8787 -e ENERGY_SIM_TOKEN=change-me energy-rental-kit
#   docker run --rm -v "$PWD:/work" energy-rental-kit contract --base-url URL --api-key KEY
# node:26 is the Active LTS line (Node 20 reached its end of life in April 2026); the
# package still declares engines >=20.19.

FROM node:26-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY . .
RUN npm run build

FROM node:26-slim
ENV NODE_ENV=production \
    ENERGY_SIM_HOST=0.0.0.0 \
    ENERGY_SIM_PORT=8787
WORKDIR /app
# The production dependencies include vitest: `contract` and `record` run the kit's suite with it.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY spec ./spec
COPY examples/scenario.yaml ./examples/scenario.yaml
COPY mock/http/dashboard/static ./mock/http/dashboard/static
# The documentation and the CI example the package ships, so the image holds what a user installs.
COPY examples/ci/upstream-check.yml ./examples/ci/upstream-check.yml
COPY docs/*.md ./docs/
# Commands run in /work, the one directory the node user may write: contract-report.json
# and recordings land there (mount your directory on it to keep them); /app stays read-only.
RUN mkdir /work && chown node:node /work
WORKDIR /work
USER node
EXPOSE 8787
# Off loopback the control plane needs a token: pass ENERGY_SIM_TOKEN at run time.
# Without one, /_sim is off (the API and /_sim/health still work).
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.ENERGY_SIM_PORT||8787)+'/_sim/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "/app/bin/energy-rental-kit.js"]
CMD ["serve"]
