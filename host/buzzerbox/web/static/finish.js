// The photo finish page: the last race, every press and its lead, false starts.
import { run } from "./common.js";
import { $ } from "./dom.js";
import { renderPhoto } from "./photo.js";

run((state) => {
  const title = $("#photo-title");
  const rounds = state.game && state.game !== "twinit" && state.round;
  title.textContent = rounds ? `Photo finish · round ${state.round}` : "Photo finish";
  renderPhoto($("#photo"), state);
});
