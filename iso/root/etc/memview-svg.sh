# docs/memory.md's picture of a shell's memory after a fork (tests/docs/figures.sh): memview
# --svg draws this shell from a subshell, which shares every page neither has written since
echo memview-svg: begin
(memview --svg $$; :)
echo memview-svg: end
