package caller

func systemTable() processTable { return procFS{root: "/proc"} }
