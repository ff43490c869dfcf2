// Svelte 5 compiles `<script lang="ts">` natively; no preprocessor needed.
export default {};
