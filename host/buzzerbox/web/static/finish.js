// The photo finish page: the last race, every press and its lead, false starts.
import { run } from "./common.js";
import { $ } from "./dom.js";
import { renderPhoto } from "./photo.js";

run((state) => {
  const title = $("#photo-title");
  title.textContent = state.game && state.round ? `Photo finish · round ${state.round}` : "Photo finish";
  renderPhoto($("#photo"), state);
});
