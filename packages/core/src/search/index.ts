export {
  matchesExactTitle,
  matchesSearch,
  normalizeSearchTerm,
  normalizeSearchText,
  type Searchable,
} from "./normalize.js";
