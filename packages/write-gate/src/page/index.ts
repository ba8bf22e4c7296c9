export { loadPageAssets, type PageAsset, type PageAssets, simpleWebAuthnBundlePath } from "./assets.js";
