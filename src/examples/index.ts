export * from "./registry.js";

import "./catalog.js";
