from openclaw_tinmem.cli import main

main()
